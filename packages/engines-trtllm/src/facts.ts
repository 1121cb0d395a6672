/**
 * What TensorRT-LLM accepts, as data. Provenance (NVIDIA/TensorRT-LLM, 1.x, "TensorRT LLM"
 * spelling): tensorrt_llm/commands/build.py @ 65f1d153 (trtllm-build flags) and
 * tensorrt_llm/plugin/plugin.py @ c20322ff (plugin flags incl. gemm_swiglu, reduce_fusion,
 * use_fused_mlp; an older plugin.py lacks these, so they are 1.x-specific). Executor runtime
 * parameters (enable_chunked_context, cuda_graph_mode) as triton-inference-server/tensorrtllm_backend
 * @ c2e65b88 exposes them.
 */

export const TRTLLM_VERSIONS = ['1.0'] as const

/** Plugin precision per activation dtype; `auto` follows the checkpoint's dtype. */
export const PLUGIN_DTYPE = { fp16: 'float16', bf16: 'bfloat16', fp8_e4m3: 'auto' } as const

/** `--gemm_plugin` per activation dtype (cuBLASLt plugin; fp8 uses its fp8 mode). */
export const GEMM_PLUGIN = { fp16: 'float16', bf16: 'bfloat16', fp8_e4m3: 'fp8' } as const
