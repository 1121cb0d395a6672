/**
 * @module @kerneltune/engines-triton
 * Translates a kerneltune catalog combination into a Triton Inference Server model repository
 * (config.pbtxt plus the backend's files) and server command line, or refuses with the dimension,
 * the value and why. Kernels are the backend's business: the tensorrtllm backend (default) gets a
 * trtllm-build script and runtime parameters, the vllm backend a model.json and environment, each
 * planned by the engine that provides the backend (`tritonBackend`), looked up in the registry.
 * Versions are TensorRT-LLM backend releases (1.0, 0.19), which decide the tensorrt_llm template and
 * its tensors (each release's own list, TEMPLATE_TENSORS).
 *
 * @example
 * ```ts
 * import { createRegistry } from '@kerneltune/core'
 * import { tritonEngine } from '@kerneltune/engines-triton'
 * import { trtllmEngine } from '@kerneltune/engines-trtllm'
 * // The backend's engine is found in the registry Triton is given (its `tritonBackend`).
 * const registry = createRegistry([trtllmEngine()])
 * const r = tritonEngine({ engines: registry }).translate({ kv_layout: 'chunked', cuda_graph: 'per-shape' })
 * if (r.ok) for (const [file, text] of Object.entries(r.files)) console.log(`# ${file}\n${text}`)
 * ```
 */
export { tritonEngine, type TritonEnginePlugin, DEFAULT_MAX_BATCH_SIZE, ENGINE_DIR, MODEL_PLACEHOLDER, type TritonEngineOptions } from './engine.ts'
export { TEMPLATE_INPUTS, TEMPLATE_OUTPUTS, TEMPLATE_TENSORS, type TemplateTensor, type TemplateTensors } from './tensors.ts'
export { BACKENDS, TRITON_RELEASES, TRITON_VERSIONS, type TritonBackend, type TritonRelease, type TritonVersion } from './releases.ts'
