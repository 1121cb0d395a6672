/**
 * The roofline bounds of a run's model on its hardware at its workload, for the run detail: what
 * the specifications allow (peak bandwidth and FLOPS), a prediction that the dashboard shows
 * beside the measured baseline and labels as one, as `kerneltune sweep --engine onnx` prints it.
 */
import { isKerneltuneError, type Run } from '@kerneltune/core'
import { decodeBound, prefillBound, type PhaseBound } from '@kerneltune/roofline'

export interface RooflinePhase { boundTps: number; binding: PhaseBound['binding']; explanation: string }
export interface RooflinePrediction {
  kind: 'prediction'
  source: string
  hardware: { name: string; memBwGbs: number; fp16Tflops: number }
  workload: { batch: number; promptTokens: number; kvBytesPerElement: number }
  decode: RooflinePhase
  prefill: RooflinePhase
  /** Shapes the bounds could not use (a term left out, so the bound is higher than it would be). */
  missing: string[]
}

const phase = (b: PhaseBound): RooflinePhase => ({ boundTps: b.boundTps, binding: b.binding, explanation: b.explanation })

/** Null when the run's model or hardware lacks what a bound needs (the roofline then refuses). */
export function runRoofline(run: Pick<Run, 'target' | 'backend'>): RooflinePrediction | null {
  const { model, hardware, workload } = run.target
  // The synthesized ORT decoders keep their past key/values in fp32; engines that serve fp16 KV use 2.
  const kvBytesPerElement = run.backend === 'onnxruntime' ? 4 : 2
  const opts = { batch: workload.batch, contextLength: workload.promptTokens, kvBytesPerElement }
  // A model known only by its size (a bench run against a server that says no more) has no bytes per weight to bound by.
  if (model.quant === undefined && !('weightBytes' in model && model.weightBytes !== undefined)) return null
  try {
    const decode = decodeBound(model, hardware, opts)
    const prefill = prefillBound(model, hardware, opts)
    return {
      kind: 'prediction', source: 'roofline (from specifications, not measured)',
      hardware: { name: hardware.name, memBwGbs: hardware.memBwGbs, fp16Tflops: hardware.fp16Tflops },
      workload: { batch: workload.batch, promptTokens: workload.promptTokens, kvBytesPerElement },
      decode: phase(decode), prefill: phase(prefill), missing: [...new Set([...decode.missing, ...prefill.missing])],
    }
  } catch (e) {
    if (isKerneltuneError(e)) return null
    throw e
  }
}
