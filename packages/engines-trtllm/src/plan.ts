/**
 * Maps a combination onto trtllm-build flags (build time) and executor runtime parameters (run
 * time). This targets the TensorRT engine path; the PyTorch LLM API path (attn_backend,
 * cuda_graph_config) is the `trtllm-serve` target (serve.ts).
 */
import type { CoreDimensionId } from '@kerneltune/core'
import { GEMM_PLUGIN, GEMM_SWIGLU_SM, PLUGIN_DTYPE, UNSUPPORTED_ON_SM } from './releases.ts'

export type TrtllmPlan =
  | { ok: true; build: [string, string][]; runtime: Record<string, boolean>; notes: string[] }
  | { ok: false; dimension: CoreDimensionId; reason: string }

const no = (dimension: CoreDimensionId, reason: string): TrtllmPlan => ({ ok: false, dimension, reason })

type Dtype = keyof typeof PLUGIN_DTYPE

/** What the plan knows about the device: its SM (compute capability × 10), when known. */
export interface TrtllmTarget {
  readonly sm?: number
}

/**
 * Plans a combination whose keys and values are already known to be core ones. Plugins that
 * plugin.py refuses on the target's SM are refused here too, before a build would fail.
 */
export function planTrtllm(v: Partial<Record<CoreDimensionId, string>>, target: TrtllmTarget = {}): TrtllmPlan {
  // A map keeps one value per flag (attention and KV layout both speak about the cache type).
  const build = new Map<string, string>()
  const runtime: Record<string, boolean> = {}
  const notes: string[] = []
  const dtype = v.activation_dtype as Dtype | 'fp8_e5m2' | undefined
  const fp8 = dtype === 'fp8_e4m3'
  const pluginDtype = dtype && dtype !== 'fp8_e5m2' ? PLUGIN_DTYPE[dtype] : 'auto'

  switch (v.attention_backend) {
    case 'flash_attn_v2':
      build.set('--gpt_attention_plugin', pluginDtype).set('--context_fmha', 'enable')
      notes.push("flash_attn_v2 maps to TensorRT-LLM's own fused context FMHA (a FlashAttention-2-class kernel), not the FlashAttention library.")
      break
    case 'paged_attention':
      build.set('--gpt_attention_plugin', pluginDtype).set('--kv_cache_type', 'paged')
      break
    case 'native':
      build.set('--gpt_attention_plugin', pluginDtype).set('--context_fmha', 'disable')
      notes.push('native attention maps to unfused context attention (--context_fmha disable).')
      break
    case 'flash_attn_v3':
      return no('attention_backend', 'TensorRT-LLM has no FlashAttention 3 by that name; its Hopper kernels are its own fused FMHA/XQA (use flash_attn_v2 for those)')
    case 'flashinfer':
      return no('attention_backend', 'FlashInfer is an attn_backend of the PyTorch LLM API only; a trtllm-build engine uses the gpt_attention plugin')
    case 'xformers':
      return no('attention_backend', 'TensorRT-LLM has no xformers attention')
  }

  switch (v.kv_layout) {
    case 'contiguous':
      if (v.attention_backend === 'paged_attention') return no('kv_layout', 'paged_attention reads a paged KV cache; it cannot run on a contiguous (continuous) one')
      build.set('--kv_cache_type', 'continuous').set('--use_paged_context_fmha', 'disable')
      break
    case 'paged':
      build.set('--kv_cache_type', 'paged')
      break
    case 'chunked':
      if (v.attention_backend === 'native') return no('kv_layout', 'chunked context needs paged context FMHA, and native attention turns the fused context FMHA off (inferred from the build flags, not verified)')
      build.set('--kv_cache_type', 'paged').set('--use_paged_context_fmha', 'enable')
      runtime.enable_chunked_context = true
      notes.push('--max_num_tokens bounds the context chunk.')
      break
  }

  switch (v.matmul_path) {
    case 'cublas':
      if (dtype === 'fp8_e5m2') break
      build.set('--gemm_plugin', dtype ? GEMM_PLUGIN[dtype] : 'auto')
      notes.push('cuBLAS is reached through the cuBLASLt GEMM plugin (--gemm_plugin).')
      break
    case 'cutlass':
      if (!fp8) return no('matmul_path', "TensorRT-LLM's CUTLASS GEMMs are its fp8 plugins; for fp16/bf16 GEMMs the choice is cuBLASLt (--gemm_plugin) or TensorRT's own tactics (set activation_dtype to fp8_e4m3)")
      if (target.sm !== undefined && UNSUPPORTED_ON_SM[target.sm]?.includes('--low_latency_gemm_plugin')) {
        return no('matmul_path', `trtllm-build refuses --low_latency_gemm_plugin (and --fp8_rowwise_gemm_plugin, its other CUTLASS fp8 GEMM) on SM ${target.sm}: plugin.py validate() lists them as "not supported on SM ${target.sm}"`)
      }
      build.set('--low_latency_gemm_plugin', 'fp8')
      break
    case 'triton':
      return no('matmul_path', 'a TensorRT-LLM engine has no Triton GEMMs: GEMMs come from TensorRT tactics or its cuBLASLt/CUTLASS plugins')
    case 'machete':
      return no('matmul_path', 'TensorRT-LLM has no Machete kernels')
  }

  switch (dtype) {
    case 'fp16':
    case 'bf16':
      notes.push(`The checkpoint must be converted with --dtype ${PLUGIN_DTYPE[dtype]}: trtllm-build takes the model dtype from it.`)
      break
    case 'fp8_e4m3':
      if (build.get('--context_fmha') !== 'disable') build.set('--use_fp8_context_fmha', 'enable')
      notes.push('fp8 needs an FP8-quantized checkpoint (ModelOpt); trtllm-build cannot quantize.')
      break
    case 'fp8_e5m2':
      return no('activation_dtype', 'TensorRT-LLM fp8 GEMMs and attention are e4m3; e5m2 activations cannot be expressed')
  }

  switch (v.fusion_strategy) {
    case 'none':
      build.set('--use_fused_mlp', 'disable')
      break
    case 'conservative':
      build.set('--use_fused_mlp', 'enable')
      break
    case 'aggressive':
      build.set('--use_fused_mlp', 'enable').set('--reduce_fusion', 'enable').set('--norm_quant_fusion', 'enable')
      // "only supported for FP8 precision on Hopper", and refused outright on SM 100.
      if (fp8 && target.sm === GEMM_SWIGLU_SM) build.set('--gemm_swiglu_plugin', 'fp8')
      else if (fp8) notes.push(`--gemm_swiglu_plugin fp8 is left out: it runs on Hopper (sm_90) only${target.sm === undefined ? '; give the hardware to add it there' : ''}.`)
      notes.push('--reduce_fusion fuses work after all-reduce, so it changes nothing without tensor parallelism.')
      break
  }

  switch (v.cuda_graph) {
    case 'off':
      runtime.cuda_graph_mode = false
      break
    case 'per-shape':
      runtime.cuda_graph_mode = true
      break
    case 'dynamic':
      return no('cuda_graph', 'a TensorRT engine captures CUDA graphs per batch size (cuda_graph_mode); padding to captured sizes (cuda_graph_config.enable_padding) exists only in the PyTorch LLM API, which this translator does not target')
  }
  return { ok: true, build: [...build], runtime, notes }
}
