/**
 * @module @kerneltune/engines-triton
 * Translates a kerneltune catalog combination into a Triton Inference Server model repository
 * (config.pbtxt plus the backend's files) and server command line, or refuses with the dimension,
 * the value and why. Kernels are the backend's business: the tensorrtllm backend (default) gets a
 * trtllm-build script and runtime parameters, the vllm backend a model.json and environment.
 * Versions are TensorRT-LLM backend releases (1.0, 0.19), which decide the tensorrt_llm template.
 *
 * @example
 * ```ts
 * import { tritonEngine } from '@kerneltune/engines-triton'
 * const r = tritonEngine().translate({ kv_layout: 'chunked', cuda_graph: 'per-shape' })
 * if (r.ok) for (const [file, text] of Object.entries(r.files)) console.log(`# ${file}\n${text}`)
 * ```
 */
export { tritonEngine, type TritonEnginePlugin, DEFAULT_MAX_BATCH_SIZE, ENGINE_DIR, MODEL_PLACEHOLDER, type TritonEngineOptions } from './engine.ts'
export { TEMPLATE_INPUTS, TEMPLATE_OUTPUTS, type TemplateTensor } from './tensors.ts'
export { BACKENDS, TRITON_RELEASES, TRITON_VERSIONS, type TritonBackend, type TritonRelease, type TritonVersion } from './releases.ts'
