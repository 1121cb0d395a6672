/**
 * How the six core catalog dimensions map onto llama.cpp. llama.cpp has its own kernels (ggml),
 * so most core values name libraries it does not use; those are refused with the reason. What it
 * can express goes through ggml's runtime environment switches (see ENV in facts.ts).
 */
import { ENV } from './facts.ts'

export type CoreMapping =
  | { readonly ok: true; readonly env?: Readonly<Record<string, string>>; readonly note?: string }
  | { readonly ok: false; readonly reason: string }

const accept = (note?: string, env?: Record<string, string>): CoreMapping => ({ ok: true, ...(note ? { note } : {}), ...(env ? { env } : {}) })
const refuse = (reason: string): CoreMapping => ({ ok: false, reason })

/**
 * The core dimensions llama.cpp has a control for. Not matmul_path: ggml picks its matrix
 * multiplication kernels (MMQ/MMVQ, or cuBLAS for large batches) itself, and forcing one is a
 * build option (-DGGML_CUDA_FORCE_CUBLAS / -DGGML_CUDA_FORCE_MMQ), not a server flag.
 */
export const LLAMACPP_CONTROLS = ['attention_backend', 'kv_layout', 'activation_dtype', 'fusion_strategy', 'cuda_graph'] as const

const OWN_ATTENTION = 'llama.cpp runs its own ggml attention kernels and cannot load this library; choose native and tune the flash_attn dimension (-fa on|off|auto) instead'

export const CORE_MAPPING: Readonly<Record<(typeof LLAMACPP_CONTROLS)[number], Readonly<Record<string, CoreMapping>>>> = {
  attention_backend: {
    native: accept(),
    flash_attn_v2: refuse(OWN_ATTENTION),
    flash_attn_v3: refuse(OWN_ATTENTION),
    flashinfer: refuse(OWN_ATTENTION),
    paged_attention: refuse(OWN_ATTENTION),
    xformers: refuse(OWN_ATTENTION),
  },
  kv_layout: {
    contiguous: accept('llama.cpp keeps one contiguous KV cache of ctx_size cells (the default)'),
    paged: refuse('llama.cpp has no paged KV cache; its cache is one contiguous buffer of ctx_size cells'),
    chunked: refuse('llama.cpp always splits prompts into batch_size/ubatch_size pieces; tune those dimensions instead of a chunked-prefill switch'),
  },
  activation_dtype: {
    fp16: accept(`sets ${ENV.cublasComputeType}=f16: only cuBLAS matrix multiplications on CUDA change; ggml keeps other activations in f32`, {
      [ENV.cublasComputeType]: 'f16',
    }),
    bf16: accept(`sets ${ENV.cublasComputeType}=bf16: only cuBLAS matrix multiplications on CUDA change; ggml keeps other activations in f32`, {
      [ENV.cublasComputeType]: 'bf16',
    }),
    fp8_e4m3: refuse('llama.cpp has no fp8 activation path; quantize the weights in the GGUF and the KV cache with cache_type_k/cache_type_v instead'),
    fp8_e5m2: refuse('llama.cpp has no fp8 activation path; quantize the weights in the GGUF and the KV cache with cache_type_k/cache_type_v instead'),
  },
  fusion_strategy: {
    none: accept(`disables ggml op fusion on CUDA (${ENV.disableCudaFusion}=1) and Vulkan (${ENV.disableVulkanFusion}=1); the CPU backend has no switch`, {
      [ENV.disableCudaFusion]: '1',
      [ENV.disableVulkanFusion]: '1',
    }),
    conservative: accept("ggml's built-in fusions (such as RMS norm with multiply) are on by default"),
    aggressive: refuse('llama.cpp has no setting beyond its built-in fusions'),
  },
  cuda_graph: {
    off: accept(`sets ${ENV.disableCudaGraphs}=1 (CUDA builds only)`, { [ENV.disableCudaGraphs]: '1' }),
    'per-shape': accept('ggml-cuda captures a CUDA graph and re-captures it when the graph changes (the default)'),
    dynamic: refuse('ggml-cuda graphs are captured per graph shape; there is no dynamic-shape graph mode'),
  },
}
