/**
 * The demo's prediction: the pretrained regressor of @kerneltune/regressor with this machine's
 * probed bandwidth and estimated FLOP rate, capped by the roofline bound, for decode (at the
 * middle of the generated run) and prefill. Computed, not measured: the demo labels it so.
 */
import type { HardwareSpec, ModelSpec } from '@kerneltune/core'
import { parseQuery, pretrainedModel, queryBound, type ThroughputQueryInput } from '@kerneltune/regressor'

/** The regressor's vendor one-hot from the CPU model string (its data has no Intel or AMD rows, so these weigh nothing). */
const cpuVendor = (model: string) => (/intel/i.test(model) ? 'intel' : /amd|epyc|ryzen/i.test(model) ? 'amd' : /apple/i.test(model) ? 'apple' : 'other')
/** A GPU preset's vendor as the regressor names it. */
const VENDORS = ['nvidia', 'amd', 'apple', 'intel']

export interface DemoPhase {
  readonly predictedTps: number
  readonly rooflineTps: number
  readonly capped: boolean
  readonly rawTps: number
  readonly confidence: number
  readonly binding: string
  readonly explanation: string
  readonly interval?: { readonly low: number; readonly high: number; readonly level: number }
  readonly extrapolation?: readonly string[]
}

export interface DemoPrediction {
  readonly kind: 'prediction'
  readonly predictor: string
  readonly decodeTps: number
  readonly prefillTps: number
  readonly decode: DemoPhase
  readonly prefill: DemoPhase
  readonly memBwGbs: number
  readonly tflops: number
  readonly unifiedMemory: boolean
  readonly vendor: string
}

export function predictDemo(spec: HardwareSpec, cpuModel: string, model: ModelSpec, w: { readonly promptTokens: number; readonly genTokens: number }): DemoPrediction {
  const gpu = spec.kind !== 'cpu'
  const base = {
    paramsB: model.paramsB, quant: model.quant, memBwGbs: spec.memBwGbs, tflops: spec.fp16Tflops, batch: 1,
    unifiedMemory: spec.unifiedMemory ?? !gpu,
    vendor: (gpu ? (VENDORS.includes(spec.vendor) ? spec.vendor : 'other') : cpuVendor(cpuModel)) as NonNullable<ThroughputQueryInput['vendor']>,
    // The physics model's per-layer overhead and its CPU efficiencies (issue 18).
    layers: model.numLayers, device: gpu ? 'gpu' as const : 'cpu' as const,
  }
  const regressor = pretrainedModel()
  const phase = (q: ThroughputQueryInput): DemoPhase => {
    const p = regressor.predict(q)
    const b = queryBound(parseQuery(q))
    return { predictedTps: p.predictedTps, rooflineTps: p.rooflineTps, capped: p.capped, rawTps: p.rawTps, confidence: p.confidence, binding: b.binding, explanation: b.explanation, ...(p.interval ? { interval: p.interval } : {}), ...(p.extrapolation ? { extrapolation: p.extrapolation } : {}) }
  }
  const decode = phase({ ...base, phase: 'decode', contextTokens: w.promptTokens + Math.floor(w.genTokens / 2) })
  const prefill = phase({ ...base, phase: 'prefill', promptTokens: w.promptTokens })
  return { kind: 'prediction', predictor: regressor.name, decodeTps: decode.predictedTps, prefillTps: prefill.predictedTps, decode, prefill, memBwGbs: base.memBwGbs, tflops: base.tflops, unifiedMemory: base.unifiedMemory, vendor: base.vendor }
}
