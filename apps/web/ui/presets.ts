/** The choices the Runner form offers. Hardware figures are vendor datasheet numbers (dense FP16). */
export const ENGINES = ['vllm', 'tgi', 'trtllm', 'trtllm-serve', 'triton', 'onnx', 'llamacpp'] as const
export const BACKENDS = ['analytical', 'gpu-kernels', 'llamacpp'] as const
/**
 * What each backend's numbers are, said before a run starts (packages/backends: analytical.ts is
 * `simulated: true`; gpu-kernels-backend.node.ts declares `proxy: { engine: true, device: true }`).
 */
export const BACKEND_NOTES: Record<(typeof BACKENDS)[number], string> = {
  analytical: 'simulated: nothing is run; the numbers are a roofline prediction for the hardware preset.',
  'gpu-kernels': 'proxy: times WGSL decode GEMV kernels on the server\'s WebGPU device, standing in for the engine on the hardware preset.',
  llamacpp: 'measured: llama.cpp runs the run\'s GGUF model on the server.',
}
export const GATES = ['topk5', 'pareto', 'regression', 'manual'] as const
export const MODES = ['quick', 'exhaustive'] as const

export const HARDWARE = {
  'h100-sxm': { id: 'h100-sxm', name: 'H100 SXM', vendor: 'nvidia', memBwGbs: 3350, fp16Tflops: 989 },
  'a100-80gb': { id: 'a100-80gb', name: 'A100 80GB', vendor: 'nvidia', memBwGbs: 2039, fp16Tflops: 312 },
  'l4': { id: 'l4', name: 'L4', vendor: 'nvidia', memBwGbs: 300, fp16Tflops: 121 },
  'mi300x': { id: 'mi300x', name: 'MI300X', vendor: 'amd', memBwGbs: 5300, fp16Tflops: 1307 },
} as const
export type HardwareId = keyof typeof HARDWARE

export const MODELS = {
  'llama-3-8b': { name: 'llama-3-8b', paramsB: 8, quant: 'F16' },
  'llama-3-70b': { name: 'llama-3-70b', paramsB: 70, quant: 'F16' },
  'qwen2.5-0.5b': { name: 'qwen2.5-0.5b', paramsB: 0.5, quant: 'F16' },
} as const
export type ModelId = keyof typeof MODELS
