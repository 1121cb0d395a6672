/**
 * `kerneltune model synth`: writes a synthetic GGUF model with random weights. Such a model
 * generates meaningless text, but llama.cpp runs it at the speed of a trained model of the same
 * shape and quantization, which is what speed measurements need.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { KerneltuneError } from '@kerneltune/core'
import { SYNTH_QUANTS, parseParamCount, synthLlama, type SynthQuant } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, progressBar } from '../cli/output.ts'

const modelSynth = defineCommand({
  name: 'synth',
  summary: 'Write a valid GGUF with random weights (meaningless text, real speed).',
  description:
    'Chooses a llama shape (hidden size, layers, heads, FFN width) near the target parameter count, writes the metadata, a byte-level vocabulary and seeded random weights, quantized with ggml-exact Q8_0/Q4_0 encoders. The file is streamed to FILE.partial-<pid> and renamed when complete, so multi-GB models never sit in memory and nothing half-written is left behind.',
  flags: [
    { name: 'arch', type: 'string', description: 'Architecture.', choices: ['llama'], default: 'llama' },
    { name: 'params', type: 'string', description: 'Target parameter count: 60M, 1.5B, 300k...', valueName: 'N', default: '60M' },
    { name: 'quant', type: 'string', description: 'Type of the 2-D weights (norms stay F32).', choices: SYNTH_QUANTS, default: 'F16' },
    { name: 'out', type: 'string', description: 'Where to write the GGUF.', valueName: 'FILE.gguf' },
    { name: 'seed', type: 'integer', description: 'Random seed (same seed, same bytes).', default: 1, min: 0 },
    { name: 'vocab-size', type: 'integer', description: 'Vocabulary size (at least 260: specials, 256 byte tokens, space).', default: 32000, min: 260 },
    { name: 'context-length', type: 'integer', description: 'llama.context_length written to the metadata.', default: 2048, min: 32 },
    { name: 'hidden', type: 'integer', description: 'Fix the hidden size instead of choosing it.', min: 32 },
    { name: 'layers', type: 'integer', description: 'Fix the number of layers instead of choosing it.', min: 1 },
    { name: 'force', type: 'boolean', description: 'Overwrite FILE if it exists.' },
    { name: 'dry-run', type: 'boolean', description: 'Print the shape and size without writing.' },
  ],
  examples: [
    'kerneltune model synth --params 60M --quant Q8_0 --out /tmp/llama-60m-q8_0.gguf',
    'kerneltune model synth --params 7B --quant Q4_0 --out llama-7b-q4_0.gguf --dry-run --json',
    'kerneltune model synth --params 2M --vocab-size 512 --quant Q4_0 --out tiny.gguf',
  ],
  jsonOutput:
    '{ ok, written, path, arch, quant, seed, targetParams, params, shape: { hidden, layers, heads, kvHeads, headDim, ffn, vocab, contextLength }, tensors, bytes, seconds, note }',
  async run(ctx) {
    const f = ctx.flags
    const target = parseParamCount(f.params ?? '60M')
    const quant = (f.quant ?? 'F16') as SynthQuant
    const model = synthLlama({
      params: target,
      quant,
      seed: f.seed ?? 1,
      vocabSize: f.vocabSize ?? 32000,
      contextLength: f.contextLength ?? 2048,
      ...(f.hidden === undefined ? {} : { hidden: f.hidden }),
      ...(f.layers === undefined ? {} : { layers: f.layers }),
    })
    const dryRun = f.dryRun === true
    if (!dryRun && !f.out) throw new KerneltuneError('INVALID_INPUT', '--out FILE.gguf is required (or pass --dry-run to only print the shape)')
    const path = f.out ? resolve(ctx.io.cwd, f.out) : undefined
    if (path && !dryRun && existsSync(path) && !f.force) {
      throw new KerneltuneError('INVALID_INPUT', `${path} exists; pass --force to overwrite it or choose another --out`)
    }
    const started = Date.now()
    if (!dryRun && path) {
      const total = model.layout.totalBytes
      const bar = progressBar(ctx.io, 'writing MB', Math.ceil(total / 1e6))
      await writeGgufFile(path, model.file, { onProgress: (w) => bar.update(Math.floor(w / 1e6)) })
      bar.done()
    }
    const seconds = (Date.now() - started) / 1000
    const note = 'random weights: this model generates meaningless text; its speed is real'
    if (ctx.json) {
      ctx.printJson({
        ok: true,
        written: !dryRun,
        path: path ?? null,
        arch: 'llama',
        quant,
        seed: f.seed ?? 1,
        targetParams: target,
        params: model.paramCount,
        shape: model.shape,
        tensors: model.file.tensors.length,
        bytes: model.layout.totalBytes,
        seconds,
        note,
      })
      return
    }
    const s = model.shape
    ctx.io.stdout(
      keyValues([
        ['file', dryRun ? '(dry run, nothing written)' : path],
        ['parameters', `${fmt(model.paramCount / 1e6, 1)}M (target ${fmt(target / 1e6, 1)}M)`],
        ['shape', `hidden ${s.hidden}, layers ${s.layers}, heads ${s.heads} (kv ${s.kvHeads}, dim ${s.headDim}), ffn ${s.ffn}, vocab ${s.vocab}, context ${s.contextLength}`],
        ['weights', `${quant}, seed ${f.seed ?? 1}`],
        ['size', `${fmt(model.layout.totalBytes / 1e6, 1)} MB in ${model.file.tensors.length} tensors`],
        ...(dryRun ? [] : ([['time', `${fmt(seconds, 1)} s`]] as [string, string][])),
        ['note', note],
      ]),
    )
  },
})

export const modelCommand = defineCommand({
  name: 'model',
  summary: 'Model files: synthesize GGUF models with random weights for speed measurements.',
  subcommands: [modelSynth],
})
