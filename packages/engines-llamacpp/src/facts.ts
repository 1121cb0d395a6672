/**
 * What the targeted llama.cpp accepts, read from its source: the release node-llama-cpp 3.22.1
 * bundles (node_modules/node-llama-cpp/llama/llama.cpp.info.json: ggml-org/llama.cpp, tag
 * v0.5.0; source in llama/gitRelease.bundle). Flag spellings come from common/arg.cpp, defaults
 * from common/common.h, legality from src/llama-context.cpp.
 */

export const LLAMACPP_VERSION = 'v0.5.0'
export const SOURCE = 'ggml-org/llama.cpp v0.5.0 as bundled by node-llama-cpp 3.22.1'

/** K/V cache types llama-server accepts (`kv_cache_types` in common/arg.cpp), as ggml_type_name spells them. */
export const KV_CACHE_TYPES = ['f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'q4_1', 'iq4_nl', 'q5_0', 'q5_1'] as const
export const QUANTIZED_KV_TYPES: readonly string[] = ['q8_0', 'q4_0', 'q4_1', 'iq4_nl', 'q5_0', 'q5_1']

/** common_params defaults (common/common.h): n_batch 2048, n_ubatch 512, n_ctx 0 (the model's). */
export const DEFAULTS = {
  threads: 'auto',
  batch_size: '2048',
  ubatch_size: '512',
  flash_attn: 'auto',
  cache_type_k: 'f16',
  cache_type_v: 'f16',
  gpu_layers: 'auto',
  ctx_size: '0',
  mmap: 'on',
  mlock: 'off',
} as const

/** Flag spellings (common/arg.cpp). */
export const FLAGS = {
  model: '-m',
  threads: '--threads',
  batch_size: '--batch-size',
  ubatch_size: '--ubatch-size',
  flash_attn: '--flash-attn',
  cache_type_k: '--cache-type-k',
  cache_type_v: '--cache-type-v',
  gpu_layers: '--n-gpu-layers',
  ctx_size: '--ctx-size',
  // This release replaced --no-mmap/--mlock with one mode flag: auto|none|mmap|mlock|mmap+mlock|dio.
  load_mode: '--load-mode',
  host: '--host',
  port: '--port',
} as const

/** ggml runtime switches (environment variables read with getenv in ggml/src). */
export const ENV = {
  /** ggml-cuda common.cuh: set to a value, it disables CUDA graphs. */
  disableCudaGraphs: 'GGML_CUDA_DISABLE_GRAPHS',
  /** ggml-cuda.cu: a non-zero integer disables op fusion. */
  disableCudaFusion: 'GGML_CUDA_DISABLE_FUSION',
  /** ggml-vulkan.cpp: set to a value, it disables op fusion. */
  disableVulkanFusion: 'GGML_VK_DISABLE_FUSION',
  /** ggml-cuda.cu: f32|f16|bf16 compute type of cuBLAS matrix multiplications. */
  cublasComputeType: 'GGML_CUDA_CUBLAS_COMPUTE_TYPE',
} as const
