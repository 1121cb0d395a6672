/**
 * `kerneltune features`: the 42-value trueno feature vector of a model on hardware under a
 * workload, with each value's name. Validates the vector before printing it.
 */
import { GGUF_TO_TRUENO, DIM, featuresFrom, isExactTruenoQuant, namedVector, toVector, validate } from '@kerneltune/features'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, table } from '../cli/output.ts'
import { HARDWARE_FLAGS, MODEL_FLAGS, WORKLOAD_FLAGS, resolveHardware, resolveModel, resolveWorkload, workloadAssumptions } from './shared/target-flags.ts'

export const featuresCommand = defineCommand({
  name: 'features',
  summary: 'Print the 42-value feature vector (trueno layout) of a model, hardware and workload.',
  description: `Builds trueno's TunerFeatures with its exact semantics: normalised values, clamped to [0,1], upstream defaults for anything unset (no --hardware: 1000 GB/s, 100 TFLOPS, 128 SMs, 48 MB L2). The quantization goes into trueno's 8-slot one-hot (GGUF formats without their own slot fold into the nearest one; see the @kerneltune/features README). The vector is validated before it is printed.`,
  flags: [...MODEL_FLAGS, ...HARDWARE_FLAGS, ...WORKLOAD_FLAGS],
  jsonOutput: `{ "dim": 42, "features": [{ "index", "name", "value" }] (42 entries), "vector": number[42], "model": ModelSpec, "modelSource": string, "hardware": HardwareSpec | null, "hardwareSource": string, "workload": { batch, phase, promptTokens, contextLength?, cudaGraphs, kernel? }, "quant": { "gguf": string, "trueno": string, "exact": boolean }, "assumptions": string[] }`,
  examples: [
    'kerneltune features --model llama-3-8b --quant Q4_K --hardware h100-sxm --batch 4',
    'kerneltune features --gguf ./model.gguf --hardware h100-sxm --batch 4 --json',
    'kerneltune features --params-b 7 --quant Q4K --mem-bw-gbs 1008 --seq-len 512',
  ],
  async run(ctx) {
    const m = (await resolveModel(ctx.flags, ctx.io))!
    const hw = resolveHardware(ctx.flags, false)
    const workload = resolveWorkload(ctx.flags)
    const f = featuresFrom({ model: m.model, hardware: hw?.hardware, workload, kernel: workload.kernel })
    validate(f)
    const named = namedVector(f)
    const quant = { gguf: m.model.quant, trueno: GGUF_TO_TRUENO[m.model.quant], exact: isExactTruenoQuant(m.model.quant) }
    const assumptions = [...m.assumptions, ...(hw?.assumptions ?? []), ...(hw ? [] : ['no hardware given: the vector uses the unset defaults']), ...workloadAssumptions(ctx.flags)]
    if (ctx.json) {
      ctx.printJson({
        dim: DIM, features: named, vector: toVector(f), model: m.model, modelSource: m.source,
        hardware: hw?.hardware ?? null, hardwareSource: hw?.source ?? 'none (unset defaults)', workload, quant, assumptions,
      })
      return
    }
    ctx.io.stdout(keyValues([
      ['model', `${m.model.name ?? m.model.architecture ?? 'custom model'} — ${fmt(m.model.paramsB, 2)}B params${m.model.activeParamsB ? ` (${fmt(m.model.activeParamsB, 2)}B active)` : ''}, ${m.model.quant} (${m.source})`],
      ['quant slot', `${quant.trueno}${quant.exact ? '' : ` (folded from ${quant.gguf})`}`],
      ['hardware', hw ? `${hw.hardware.name}: ${fmt(hw.hardware.memBwGbs)} GB/s, ${fmt(hw.hardware.fp16Tflops)} TFLOPS (${hw.source})` : 'none (unset defaults)'],
      ['workload', `${workload.phase}, batch ${workload.batch}${workload.contextLength !== undefined ? `, context ${workload.contextLength}` : ''}${workload.phase === 'prefill' ? `, prompt ${workload.promptTokens}` : ''}${workload.cudaGraphs ? ', CUDA graphs' : ''}`],
    ]))
    ctx.io.stdout('\n' + table(named.map((n) => [n.index, n.name, n.value.toFixed(6)]), ['#', 'feature', 'value']))
    if (assumptions.length) ctx.io.stdout('\nAssumed: ' + assumptions.join('; ') + '\n')
  },
})
