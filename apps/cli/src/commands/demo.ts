/**
 * `kerneltune demo`: a short end-to-end on built-in defaults. It detects this machine, takes the
 * llama-3-8b preset at Q4_K, and prints the feature summary and the computed roofline bounds on
 * an H100 SXM and on this machine. Everything printed is computed, nothing is measured.
 */
import { featuresFrom, getHardwarePreset, modelSpecFromPreset, toVector, validate } from '@kerneltune/features'
import { detectHardware, specFromDetected } from '@kerneltune/features/node'
import { decodeBound, prefillBound, truenoRooflineBound } from '@kerneltune/roofline'
import type { HardwareSpec } from '@kerneltune/core'
import { defineCommand } from '../cli/command.ts'
import { fmt, table } from '../cli/output.ts'

const MODEL = 'llama-3-8b'
const QUANT = 'Q4_K'
const BATCHES = [1, 8, 32]
const CONTEXT = 1024
const PROMPT = 512

function evaluate(hardware: HardwareSpec) {
  const model = modelSpecFromPreset(MODEL, QUANT)
  const rows = BATCHES.map((batch) => {
    const f = featuresFrom({ model, hardware, workload: { batch, contextLength: CONTEXT } })
    validate(f)
    const d = decodeBound(model, hardware, { batch, contextLength: CONTEXT })
    return { batch, decodeTps: d.boundTps, binding: d.binding, truenoTps: truenoRooflineBound(f), vectorLength: toVector(f).length }
  })
  const p = prefillBound(model, hardware, { batch: 1, contextLength: PROMPT })
  return { hardware, rows, prefill: { promptTokens: PROMPT, boundTps: p.boundTps, binding: p.binding, explanation: p.explanation } }
}

export const demoCommand = defineCommand({
  name: 'demo',
  summary: 'A short end-to-end on built-in defaults: detect this machine, then compute features and roofline bounds.',
  description: `Detects this machine's hardware, takes ${MODEL} at ${QUANT}, and prints the feature vector summary and the roofline bounds (decode at context ${CONTEXT}, batches ${BATCHES.join('/')}; prefill of ${PROMPT} tokens) on an H100 SXM and on this machine. Bounds are computed from specifications, not measured; on a CPU-only machine the bandwidth is a single-thread copy measurement and the FLOP rate an estimate, both labelled.`,
  jsonOutput: '{ "computed": true, "model": ModelSpec, "detected": DetectedHardware, "targets": [{ "hardware": HardwareSpec, "rows": [{ batch, decodeTps, binding, truenoTps, vectorLength }], "prefill": { promptTokens, boundTps, binding, explanation } }] }',
  examples: ['kerneltune demo', 'kerneltune demo --json'],
  async run(ctx) {
    const detected = await detectHardware()
    const local = specFromDetected(detected)
    const targets = [evaluate(getHardwarePreset('h100-sxm')!), evaluate(local)]
    const model = modelSpecFromPreset(MODEL, QUANT)
    if (ctx.json) return void ctx.printJson({ computed: true, model, detected, targets })
    const gpu = detected.gpus.length ? detected.gpus.map((g) => g.name).join(', ') : `no NVIDIA GPU (nvidia-smi ${detected.nvidiaSmi})`
    ctx.io.stdout(`This machine: ${detected.cpu.model}, ${detected.cpu.cores} cores / ${detected.cpu.threads} threads, ${fmt(detected.cpu.ramGb)} GiB RAM, ${detected.cpu.numaNodes} NUMA node(s); ${gpu}\n`)
    ctx.io.stdout(`Model: ${model.name} at ${QUANT}: ${fmt(model.paramsB, 2)}B params, 42-value feature vector validated for every row.\n`)
    ctx.io.stdout('All numbers below are COMPUTED bounds from specifications, not measurements.\n')
    for (const t of targets) {
      ctx.io.stdout(`\n${t.hardware.name}: ${fmt(t.hardware.memBwGbs)} GB/s, ${fmt(t.hardware.fp16Tflops, 2)} TFLOPS\n`)
      for (const s of t.hardware.id === 'this-machine' ? t.hardware.sources : []) ctx.io.stdout(`  (${s})\n`)
      ctx.io.stdout(table(t.rows.map((r) => [r.batch, fmt(r.decodeTps), r.binding, fmt(r.truenoTps)]), ['batch', `decode bound tok/s (ctx ${CONTEXT})`, 'binds', 'trueno bound']))
      ctx.io.stdout(`prefill ${PROMPT} tokens: ${fmt(t.prefill.boundTps)} tok/s, ${t.prefill.binding}-bound\n`)
    }
    ctx.io.stdout('\nNext: kerneltune roofline --help, kerneltune features --help, kerneltune hardware list\n')
  },
})
