/**
 * @module @kerneltune/engines-trtllm
 * Translates a kerneltune catalog combination into a `trtllm-build` command line and the
 * executor runtime parameters (chunked context, CUDA graph mode), or refuses with the dimension,
 * the value and why. Validated against TensorRT-LLM 1.x (TensorRT engine path).
 *
 * @example
 * ```ts
 * import { trtllmEngine } from '@kerneltune/engines-trtllm'
 * const r = trtllmEngine().translate({ attention_backend: 'flash_attn_v2', matmul_path: 'cublas', activation_dtype: 'bf16' })
 * if (r.ok) console.log(r.argv.join(' '))
 * ```
 */
export { trtllmEngine, type TrtllmEnginePlugin, RUNTIME_FILE, CHECKPOINT_PLACEHOLDER, ENGINE_DIR } from './engine.ts'
export { planTrtllm, type TrtllmPlan } from './plan.ts'
export { TRTLLM_VERSIONS } from './facts.ts'
