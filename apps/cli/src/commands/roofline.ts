/**
 * `kerneltune roofline`: the physical throughput bounds of a model on hardware: decode and
 * prefill (exact GGUF block layouts, KV cache, MoE routing), which bound binds and why, and
 * trueno's own bound (§A.4) computed from the feature vector for comparison.
 */
import { featuresFrom } from '@kerneltune/features'
import { blockLayout, decodeBound, prefillBound, ridgePoint, truenoRooflineDetail, type PhaseBound } from '@kerneltune/roofline'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, table } from '../cli/output.ts'
import { HARDWARE_FLAGS, MODEL_FLAGS, WORKLOAD_FLAGS, resolveHardware, resolveModel, resolveWorkload, workloadAssumptions } from './shared/target-flags.ts'

const ROOFLINE_FLAGS = [
  { name: 'kv-bytes', type: 'number', valueName: 'N', min: 0.25, max: 4, default: 2, description: 'Bytes per KV-cache element (2 for F16, 1 for FP8/Q8).' },
] as const

export const rooflineCommand = defineCommand({
  name: 'roofline',
  summary: 'Compute the decode and prefill throughput bounds of a model on hardware, and which one binds.',
  description: `Bounds are computed from specifications, not measured. Decode: bandwidth × batch ÷ bytes per step (weights once, at their exact GGUF block size, plus each sequence's KV cache at --seq-len), capped by compute (2 FLOPs per active parameter per token plus attention). Prefill: the lesser of the compute bound and the memory bound for --prompt-tokens per sequence. Also prints trueno's bound (clamp(bw·batch/(params·bpp), 1, 10000) from the feature vector) for comparison. Without --tflops or a preset, 100 TFLOPS is assumed and said so.`,
  flags: [...MODEL_FLAGS, ...HARDWARE_FLAGS, ...WORKLOAD_FLAGS, ...ROOFLINE_FLAGS],
  jsonOutput: `{ "computed": true, "model": ModelSpec, "modelSource": string, "hardware": HardwareSpec, "hardwareSource": string, "workload": {...}, "bytesPerWeight": number, "blockLayout": { quant, blockSize, blockBytes, layout }, "ridgePoint": number (FLOP/byte), "truenoBoundTps": number, "trueno": { boundTps, rawTps, paramsB, memBwGbs, batch, quant, bytesPerParam, quantFromEmptyOneHot, explanation }, "decode": Bound, "prefill": Bound, "assumptions": string[] } where Bound = { phase, batch, contextLength, boundTps, perSequenceTps, memoryBoundTps, computeBoundTps, binding: "memory"|"compute", bytesPerStep, flopsPerStep, weightBytesPerStep, kvBytesPerStep, bytesPerWeight, arithmeticIntensity, ridgePoint, missing: string[], explanation }`,
  examples: [
    'kerneltune roofline --params-b 7 --quant Q4_K --mem-bw-gbs 1008 --batch 1',
    'kerneltune roofline --model llama-3-8b --hardware h100-sxm --batch 16 --seq-len 2048 --json',
    'kerneltune roofline --gguf ./model.gguf --hardware rtx-4090',
  ],
  async run(ctx) {
    const m = (await resolveModel(ctx.flags, ctx.io))!
    const hw = resolveHardware(ctx.flags)!
    const workload = resolveWorkload(ctx.flags)
    const model = m.weightBytes !== undefined ? { ...m.model, weightBytes: m.weightBytes } : m.model
    const kv = ctx.flags.kvBytes ?? 2
    const decode = decodeBound(model, hw.hardware, { batch: workload.batch, contextLength: workload.contextLength ?? 0, kvBytesPerElement: kv })
    const prefill = prefillBound(model, hw.hardware, { batch: workload.batch, contextLength: workload.promptTokens, kvBytesPerElement: kv })
    const trueno = truenoRooflineDetail(featuresFrom({ model: m.model, hardware: hw.hardware, workload }))
    const layout = blockLayout(m.model.quant)
    const assumptions = [...m.assumptions, ...hw.assumptions, ...workloadAssumptions(ctx.flags)]
    if (ctx.json) {
      ctx.printJson({
        computed: true, model: m.model, modelSource: m.source, hardware: hw.hardware, hardwareSource: hw.source, workload,
        bytesPerWeight: decode.bytesPerWeight, blockLayout: layout, ridgePoint: ridgePoint(hw.hardware),
        truenoBoundTps: trueno.boundTps, trueno, decode, prefill, assumptions,
      })
      return
    }
    const row = (b: PhaseBound) => [b.phase, b.batch, b.contextLength, fmt(b.boundTps), fmt(b.perSequenceTps), fmt(b.memoryBoundTps), fmt(b.computeBoundTps), b.binding, fmt(b.arithmeticIntensity)]
    ctx.io.stdout('Computed bounds (from specifications; not measurements)\n\n')
    ctx.io.stdout(keyValues([
      ['model', `${m.model.name ?? m.model.architecture ?? 'custom model'}: ${fmt(m.model.paramsB, 2)}B params${m.model.activeParamsB ? ` (${fmt(m.model.activeParamsB, 2)}B active)` : ''} (${m.source})`],
      ['format', `${layout.quant}: ${layout.blockBytes} bytes per ${layout.blockSize} weights = ${fmt(layout.blockBytes / layout.blockSize, 4)} B/weight${m.weightBytes !== undefined ? `; file average ${fmt(decode.bytesPerWeight, 4)} B/weight` : ''}`],
      ['hardware', `${hw.hardware.name}: ${fmt(hw.hardware.memBwGbs)} GB/s, ${fmt(hw.hardware.fp16Tflops)} TFLOPS (${hw.source})`],
      ['ridge point', `${fmt(ridgePoint(hw.hardware))} FLOP/byte`],
    ]))
    ctx.io.stdout('\n' + table([row(decode), row(prefill)], ['phase', 'batch', 'context', 'bound tok/s', 'per seq', 'memory', 'compute', 'binds', 'FLOP/B']))
    ctx.io.stdout(`\ntrueno-compatible bound: ${fmt(trueno.boundTps)} tok/s (${trueno.explanation})\n`)
    ctx.io.stdout(`\nDecode: ${decode.explanation}\nPrefill: ${prefill.explanation}\n`)
    if (assumptions.length) ctx.io.stdout('\nAssumed: ' + assumptions.join('; ') + '\n')
  },
})
