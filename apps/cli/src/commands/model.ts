/**
 * `kerneltune model synth`: writes a synthetic GGUF model with random weights. Such a model
 * generates meaningless text, but an engine runs it at the speed of a trained model of the same
 * shape and quantization, which is what speed measurements need. `--fill tiled` writes it at disk
 * speed (for 8B models on a GPU machine with minutes to spare); `--experts` makes it a MoE.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { KerneltuneError } from '@kerneltune/core'
import { SYNTH_FILLS, SYNTH_QUANTS, parseParamCount, synthLlama, synthNote } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, progressBar } from '../cli/output.ts'

const modelSynth = defineCommand({
  name: 'synth',
  summary: 'Write a valid GGUF with random weights (meaningless text, real speed).',
  description:
    'Chooses a llama shape (hidden size, layers, heads, FFN width) near the target parameter count, writes the metadata, a byte-level vocabulary and seeded random weights, quantized with ggml-exact Q8_0/Q4_0 encoders. The file is streamed to FILE.partial-<pid> and renamed when complete, so multi-GB models never sit in memory and nothing half-written is left behind. --fill tiled generates only each tensor\'s first rows (about 64k values, the same bytes --fill random starts with) and repeats them to the end of the tensor: the shapes, types, sizes, offsets and metadata are those of the random file, and the kernels have no value-dependent paths, so the speed it measures is real, but the file is not fully random (do not use it to study quantization error or sparsity). It is written at disk speed, many times faster than --fill random. --experts N makes every block\'s FFN a Mixtral-style mixture of N experts (each --ffn wide), of which --experts-used are routed per token; --params then counts all experts, and the JSON gives both params (total) and activeParams (per token).',
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
    { name: 'ffn', type: 'integer', description: 'Fix the FFN width (per expert with --experts) instead of 8/3 of the hidden size; a multiple of 32.', min: 32 },
    { name: 'experts', type: 'integer', description: 'Mixture of experts: experts per layer (Mixtral layout); leave out for a dense model.', valueName: 'N', min: 2 },
    { name: 'experts-used', type: 'integer', description: 'Experts routed per token (needs --experts; default 2).', valueName: 'K', min: 1 },
    { name: 'fill', type: 'string', description: 'random: every weight generated; tiled: each tensor\'s first rows repeated (same layout and speed, written at disk speed).', choices: SYNTH_FILLS, default: 'random' },
    { name: 'force', type: 'boolean', description: 'Overwrite FILE if it exists.' },
    { name: 'dry-run', type: 'boolean', description: 'Print the shape and size without writing.' },
  ],
  examples: [
    'kerneltune model synth --params 60M --quant Q8_0 --out /tmp/llama-60m-q8_0.gguf',
    'kerneltune model synth --params 7B --quant Q4_0 --out llama-7b-q4_0.gguf --dry-run --json',
    'kerneltune model synth --params 2M --vocab-size 512 --quant Q4_0 --out tiny.gguf',
    'kerneltune model synth --params 8B --quant F16 --fill tiled --out llama-8b-f16.gguf',
    'kerneltune model synth --params 8B --experts 8 --experts-used 2 --quant Q4_0 --fill tiled --out moe-8x-q4_0.gguf',
  ],
  jsonOutput:
    '{ ok, written, path, arch, quant, fill, seed, targetParams, params, activeParams, shape: { hidden, layers, heads, kvHeads, headDim, ffn, vocab, contextLength, experts?, expertsUsed? }, tensors, bytes, seconds, mbPerSecond, note }',
  async run(ctx) {
    const f = ctx.flags
    const target = parseParamCount(f.params ?? '60M')
    const quant = f.quant ?? 'F16'
    const fill = f.fill ?? 'random'
    if (f.expertsUsed !== undefined && f.experts === undefined) throw new KerneltuneError('INVALID_INPUT', '--experts-used needs --experts N (a mixture of experts)')
    const model = synthLlama({
      params: target, quant, seed: f.seed ?? 1, vocabSize: f.vocabSize ?? 32000, contextLength: f.contextLength ?? 2048,
      hidden: f.hidden, layers: f.layers, ffn: f.ffn, experts: f.experts, expertsUsed: f.expertsUsed, fill,
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
    const mbPerSecond = !dryRun && seconds > 0 ? model.layout.totalBytes / 1e6 / seconds : null
    const note = synthNote(fill)
    if (ctx.json) {
      ctx.printJson({
        ok: true, written: !dryRun, path: path ?? null, arch: 'llama', quant, fill, seed: f.seed ?? 1, targetParams: target,
        params: model.paramCount, activeParams: model.activeParamCount, shape: model.shape, tensors: model.file.tensors.length, bytes: model.layout.totalBytes,
        seconds, mbPerSecond, note,
      })
      return
    }
    const s = model.shape
    ctx.io.stdout(keyValues([
      ['file', dryRun ? '(dry run, nothing written)' : path],
      ['parameters', `${fmt(model.paramCount / 1e6, 1)}M (target ${fmt(target / 1e6, 1)}M)${s.experts === undefined ? '' : `, ${fmt(model.activeParamCount / 1e6, 1)}M active per token`}`],
      ['shape', `hidden ${s.hidden}, layers ${s.layers}, heads ${s.heads} (kv ${s.kvHeads}, dim ${s.headDim}), ffn ${s.ffn}, vocab ${s.vocab}, context ${s.contextLength}${s.experts === undefined ? '' : `, ${s.experts} experts (${s.expertsUsed} used)`}`],
      ['weights', `${quant}, seed ${f.seed ?? 1}, fill ${fill}`],
      ['size', `${fmt(model.layout.totalBytes / 1e6, 1)} MB in ${model.file.tensors.length} tensors`],
      ...(dryRun ? [] : ([['time', `${fmt(seconds, 1)} s (${fmt(mbPerSecond ?? 0, 0)} MB/s)`]] as [string, string][])),
      ['note', note],
    ]))
  },
})

export const modelCommand = defineCommand({
  name: 'model',
  summary: 'Model files: synthesize GGUF models with random weights for speed measurements.',
  subcommands: [modelSynth],
})
