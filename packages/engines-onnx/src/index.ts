/**
 * @module @kerneltune/engines-onnx
 * Translates a kerneltune catalog combination into ONNX Runtime session options
 * (graph_optimization_level) and CUDA or TensorRT execution-provider options, or refuses with the
 * dimension, the value and why. Validated against the ONNX Runtime 1.2x-era option set.
 *
 * @example
 * ```ts
 * import { onnxEngine } from '@kerneltune/engines-onnx'
 * const r = onnxEngine({ provider: 'tensorrt' }).translate({ activation_dtype: 'fp16', cuda_graph: 'per-shape' })
 * if (r.ok) console.log(r.files['provider_options.json'])
 * ```
 */
export { onnxEngine, type OnnxEnginePlugin, SESSION_FILE, PROVIDER_FILE, type OnnxEngineOptions } from './engine.ts'
export { ORT_VERSIONS, PROVIDERS, type OrtProvider } from './facts.ts'
