/**
 * @module @kerneltune/engines-trtllm
 * Two TensorRT-LLM engine plugins. `trtllm` translates a kerneltune catalog combination into a
 * `trtllm-build` command line and the executor runtime parameters (chunked context, CUDA graph
 * mode); `trtllm-serve` translates it into a `trtllm-serve` command line and an LLM API options
 * file for the PyTorch backend. Both refuse with the dimension, the value and why, per release.
 *
 * @example
 * ```ts
 * import { trtllmEngine, trtllmServeEngine } from '@kerneltune/engines-trtllm'
 * const build = trtllmEngine().translate({ attention_backend: 'flash_attn_v2', matmul_path: 'cublas', activation_dtype: 'bf16' })
 * const serve = trtllmServeEngine().translate({ attention_backend: 'flashinfer', cuda_graph: 'off' }, { version: '1.0' })
 * if (build.ok && serve.ok) console.log(build.argv.join(' '), serve.argv.join(' '))
 * ```
 */
export { trtllmEngine, type TrtllmEnginePlugin, RUNTIME_FILE, CHECKPOINT_PLACEHOLDER, ENGINE_DIR } from './engine.ts'
export { trtllmServeEngine, planTrtllmServe, type TrtllmServeEnginePlugin, SERVE_MODEL_PLACEHOLDER } from './serve.ts'
export { planTrtllm, type TrtllmPlan, type TrtllmTarget } from './plan.ts'
export { TRTLLM_CATALOG } from './catalog.ts'
export { smOf, TRTLLM_INVENTORIES, TRTLLM_VERSIONS, type TrtllmVersion } from './releases.ts'
export { LLM_API_FILE, TRTLLM_SERVE_RELEASES, TRTLLM_SERVE_VERSIONS, type TrtllmServeRelease, type TrtllmServeVersion } from './serve-releases.ts'
export { trtllmServeServing } from './serve-serving.ts'
