/**
 * `kerneltune measure --engine llamacpp --gguf FILE`: measures one combination for real, in this
 * process, through node-llama-cpp's prebuilt llama.cpp (CPU, or CUDA/Vulkan with --gpu), and
 * prints every repetition with summary statistics.
 */
import { formatCommandLine, parseWith, ComboSchema, type Combo } from '@kerneltune/core'
import { requireGgufFile } from './shared/target-flags.ts'
import { KV_CACHE_TYPES } from '@kerneltune/engines-llamacpp'
import { summarizeRepetitions, type MetricSummary } from '@kerneltune/experiment'
import { measureOnce } from '@kerneltune/engines-llamacpp/node'
import { ggufModelInfo } from '@kerneltune/gguf'
import { loadEngine } from '@kerneltune/compose'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, progressBar, table } from '../cli/output.ts'

/** Flag → llama.cpp catalog dimension. */
const DIMENSION_FLAGS = {
  threads: 'threads',
  batch: 'batch_size',
  ubatch: 'ubatch_size',
  flashAttn: 'flash_attn',
  cacheTypeK: 'cache_type_k',
  cacheTypeV: 'cache_type_v',
  gpuLayers: 'gpu_layers',
  ctxSize: 'ctx_size',
  mmap: 'mmap',
  mlock: 'mlock',
} as const

export const measureCommand = defineCommand({
  name: 'measure',
  summary: 'Measure a combination for real: prefill and decode tokens/s, time to first token, peak memory.',
  description:
    'Loads the GGUF through node-llama-cpp (prebuilt llama.cpp binaries from npm; CPU by default, --gpu auto|cuda|vulkan where a GPU exists), runs the warm-ups, then the repetitions, and reports every repetition plus summary statistics. The combination is also translated to the equivalent llama-server command line.',
  flags: [
    { name: 'engine', type: 'string', description: 'Engine to measure.', choices: ['llamacpp'], default: 'llamacpp' },
    { name: 'gguf', type: 'string', description: 'The GGUF model file.', valueName: 'FILE' },
    { name: 'threads', type: 'string', description: 'CPU threads (a number or auto).', valueName: 'N' },
    { name: 'batch', type: 'integer', description: 'Logical batch size (-b).', min: 1 },
    { name: 'ubatch', type: 'integer', description: 'Micro-batch size (-ub).', min: 1 },
    { name: 'flash-attn', type: 'string', description: 'Flash attention.', choices: ['on', 'off', 'auto'] },
    { name: 'cache-type-k', type: 'string', description: 'K cache type.', choices: KV_CACHE_TYPES },
    { name: 'cache-type-v', type: 'string', description: 'V cache type (quantized needs flash attention).', choices: KV_CACHE_TYPES },
    { name: 'gpu-layers', type: 'string', description: 'Layers on the GPU: a number, all or auto.', valueName: 'N' },
    { name: 'ctx-size', type: 'integer', description: 'Context size in tokens (0: the model\'s).', min: 0 },
    { name: 'mmap', type: 'string', description: 'Memory-map the model.', choices: ['on', 'off'] },
    { name: 'mlock', type: 'string', description: 'Lock the model in RAM.', choices: ['on', 'off'] },
    { name: 'combo', type: 'string', description: 'More dimensions as JSON, e.g. {"cuda_graph":"off"}; flags win.', valueName: 'JSON' },
    { name: 'reps', type: 'integer', description: 'Measured repetitions.', default: 5, min: 1, max: 1000 },
    { name: 'warmup', type: 'integer', description: 'Warm-up repetitions (not reported).', default: 1, min: 0, max: 100 },
    { name: 'prompt-tokens', type: 'integer', description: 'Prompt length per repetition.', default: 128, min: 1 },
    { name: 'gen-tokens', type: 'integer', description: 'Tokens generated per repetition.', default: 32, min: 2 },
    { name: 'gpu', type: 'string', description: 'llama.cpp build: off (CPU), auto, cuda, vulkan.', choices: ['off', 'auto', 'cuda', 'vulkan'], default: 'off' },
  ],
  examples: [
    'kerneltune model synth --params 60M --quant Q8_0 --out /tmp/m.gguf && kerneltune measure --engine llamacpp --gguf /tmp/m.gguf --threads 2 --reps 5 --json',
    'kerneltune measure --engine llamacpp --gguf m.gguf --flash-attn on --cache-type-k q8_0 --cache-type-v q8_0 --prompt-tokens 256 --gen-tokens 64',
  ],
  jsonOutput:
    '{ ok, engine, backend, measured: true, simulated: false, device, combo, llamaServerArgv, llamaServerEnv, model: { path, bytes, name, architecture, fileType, tensors, hidden, layers, vocab }, workload: { promptTokens, genTokens }, warmups, repetitions, reps: [{ prefillTps, decodeTps, ttftMs, peakMemoryBytes, latencyMs, throughputTps, breakdown }], prefillTps, decodeTps, ttftMs, peakMemoryBytes: { n, mean, trimmedMean, median, sd, min, max, ci95?: { low, high } }, notes }',
  async run(ctx) {
    const f = ctx.flags
    const { path, bytes: modelBytes, header } = await requireGgufFile(ctx.io, f.gguf, 'measure')

    const extra: Combo = f.combo ? parseWith(ComboSchema, JSON.parse(f.combo) as unknown, '--combo') : {}
    const combo: Record<string, string> = { ...extra }
    for (const [flag, dim] of Object.entries(DIMENSION_FLAGS)) {
      const v = (f as Record<string, unknown>)[flag]
      if (v !== undefined) combo[dim] = String(v)
    }
    const warmups = f.warmup ?? 1
    const repetitions = f.reps ?? 5
    const promptTokens = f.promptTokens ?? 128
    const genTokens = f.genTokens ?? 32
    const gpu = f.gpu === 'off' || f.gpu === undefined ? false : f.gpu
    const bar = progressBar(ctx.io, 'measuring', warmups + repetitions)
    // The llama.cpp engine as the apps register it (the composition root), not a second instance.
    const { translation, result } = await measureOnce(await loadEngine('llamacpp'), { modelPath: path, gpu, promptTokens, genTokens, combo, warmups, repetitions, onProgress: (d) => bar.update(d) })
    bar.done()
    const summary = summarizeRepetitions(result.repetitions)
    const model = { path, bytes: modelBytes, ...ggufModelInfo(header) }
    if (ctx.json) {
      ctx.printJson({
        ok: true, engine: 'llamacpp', backend: result.backend, measured: true, simulated: result.simulated, device: result.device, combo,
        llamaServerArgv: translation.argv, llamaServerEnv: translation.env, model, workload: { promptTokens, genTokens }, warmups,
        repetitions: result.repetitions.length, reps: result.repetitions, prefillTps: summary.prefillTps, decodeTps: summary.decodeTps, ttftMs: summary.ttftMs,
        peakMemoryBytes: summary.peakMemoryBytes, notes: [...translation.notes, ...(result.notes ?? [])],
      })
      return
    }
    const io = ctx.io
    io.stdout(keyValues([
      ['device', result.device],
      ['model', `${path} (${String(model.name ?? model.architecture)}, ${fmt(modelBytes / 1e6, 1)} MB)`],
      ['llama-server', formatCommandLine(translation)],
      ['workload', `${promptTokens} prompt tokens, ${genTokens} generated; ${warmups} warm-up, ${repetitions} measured`],
    ]))
    io.stdout('\n' + table(result.repetitions.map((r, i) => [i + 1, fmt(r.prefillTps ?? NaN), fmt(r.decodeTps ?? NaN), fmt(r.ttftMs ?? NaN, 2), fmt((r.peakMemoryBytes ?? 0) / 1e6)]), ['rep', 'prefill tok/s', 'decode tok/s', 'TTFT ms', 'peak MB']))
    const row = (label: string, s: MetricSummary | undefined, digits = 1) =>
      s ? [label, fmt(s.mean, digits), fmt(s.trimmedMean, digits), fmt(s.median, digits), fmt(s.sd, digits), s.ci95 ? `${fmt(s.ci95.low, digits)} to ${fmt(s.ci95.high, digits)}` : '-'] : [label, '-', '-', '-', '-', '-']
    io.stdout('\n' + table([row('prefill tok/s', summary.prefillTps), row('decode tok/s', summary.decodeTps), row('TTFT ms', summary.ttftMs, 2)], ['metric', 'mean', 'trimmed', 'median', 'sd', '95% CI']))
    for (const n of [...translation.notes, ...(result.notes ?? [])]) io.stdout(`note: ${n}\n`)
  },
})
