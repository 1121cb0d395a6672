/**
 * Shared fixtures of the backends' tests: a small decode request on a 1.1B model and an H100,
 * parsed as the tuner parses a run's target (so defaults such as the hardware kind are filled in).
 */
import { HardwareSpecSchema, ModelSpecSchema, WorkloadSchema, parseWith } from '@kerneltune/core'
import type { ConformanceRequest } from './conformance.ts'

export const MODEL = parseWith(ModelSpecSchema, { name: 'tiny', paramsB: 1.1, hiddenDim: 2048, numLayers: 22, numHeads: 32, numKvHeads: 4, intermediateDim: 5632, quant: 'F16' }, 'model')
export const HARDWARE = parseWith(HardwareSpecSchema, { name: 'NVIDIA H100 SXM', vendor: 'nvidia', memBwGbs: 3350, fp16Tflops: 989, computeCapability: '9.0' }, 'hardware')
export const CONFORMANCE_REQUEST: ConformanceRequest = {
  combo: { activation_dtype: 'fp16' }, model: MODEL, hardware: HARDWARE,
  workload: parseWith(WorkloadSchema, { batch: 1, promptTokens: 16, generatedTokens: 6, phase: 'decode' }, 'workload'),
}
