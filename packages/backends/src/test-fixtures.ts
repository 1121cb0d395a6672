/** Shared fixtures of the backends' tests: a small decode request on a 1.1B model and an H100. */
export const MODEL = { name: 'tiny', paramsB: 1.1, hiddenDim: 2048, numLayers: 22, numHeads: 32, numKvHeads: 4, intermediateDim: 5632, quant: 'F16' as const }
export const HARDWARE = { name: 'NVIDIA H100 SXM', vendor: 'nvidia' as const, memBwGbs: 3350, fp16Tflops: 989, computeCapability: '9.0' }
export const CONFORMANCE_REQUEST = { combo: { activation_dtype: 'fp16' }, model: MODEL, hardware: HARDWARE, workload: { batch: 1, promptTokens: 16, generatedTokens: 6, phase: 'decode' as const } }
