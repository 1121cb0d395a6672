/**
 * What each supported ONNX Runtime release accepts, as data, with where each fact comes from.
 *
 * The provider option names and the attention environment variables were read from the provider
 * libraries that the npm registry ships for two releases (`strings` over the .so files, run on
 * 2026-11-23): com.github.asus4.onnxruntime.linux-x64-gpu@0.2.1 carries ONNX Runtime 1.19.2
 * (its README and the string "1.19.2" in libonnxruntime_providers_cuda.so) and @0.4.9 carries
 * 1.29.0. A name is listed for a release only when that release's library holds it.
 * `user_compute_stream` is the tail of `has_user_compute_stream` (the linker merges the two), so
 * it cannot show up on its own; it is kept from onnxruntime.json's option lists.
 */

/** Newest first; the first is the default. A `1.29` request also covers `1.29.x`. */
export const ORT_VERSIONS = ['1.29', '1.19'] as const
export type OrtVersion = (typeof ORT_VERSIONS)[number]

export const PROVIDERS = { cuda: 'CUDAExecutionProvider', tensorrt: 'TensorrtExecutionProvider' } as const
export type OrtProvider = keyof typeof PROVIDERS

/** SessionOptions.graph_optimization_level per fusion strategy (0, 1 and 99 in every release). */
export const OPTIMIZATION_LEVEL = { none: 'ORT_DISABLE_ALL', conservative: 'ORT_ENABLE_BASIC', aggressive: 'ORT_ENABLE_ALL' } as const

/** The provider option that turns CUDA graph capture on, per provider. */
export const CUDA_GRAPH_OPTION = { cuda: 'enable_cuda_graph', tensorrt: 'trt_cuda_graph_enable' } as const

/**
 * Environment variables the CUDA EP's attention contrib ops (Attention, MultiHeadAttention,
 * GroupQueryAttention) read, each "0"/"1": ORT_DISABLE_* turn a kernel family off, ORT_ENABLE_*
 * turn one on that is off by default (onnxruntime/contrib_ops/cpu/bert/attention_common.h,
 * namespace attention). They are read only while the `sdpa_kernel` provider option is 0
 * (attention_kernel_options.cc `Initialize`: `if (value > 0) { ...bits... } else { ...variables... }`),
 * so a translation selects kernels with `sdpa_kernel` and emits none of them; they are listed so
 * that the inventory knows each release's names.
 */
export const ATTENTION_ENV = {
  flash: 'ORT_DISABLE_FLASH_ATTENTION',
  memoryEfficient: 'ORT_DISABLE_MEMORY_EFFICIENT_ATTENTION',
  trtFlash: 'ORT_DISABLE_TRT_FLASH_ATTENTION',
  trtFused: 'ORT_DISABLE_FUSED_ATTENTION',
  trtCross: 'ORT_DISABLE_FUSED_CROSS_ATTENTION',
  trtCausal: 'ORT_ENABLE_FUSED_CAUSAL_ATTENTION',
  cudnnFlash: 'ORT_ENABLE_CUDNN_FLASH_ATTENTION',
  decoder: 'ORT_DISABLE_DECODER_ATTENTION',
} as const

/**
 * The bits of the CUDA EP's `sdpa_kernel` provider option: `enum class AttentionBackend` in
 * attention_common.h. A non-zero value selects exactly the kernels whose bits it has; the unfused
 * MATH path stays on whatever the mask says ("unfused kernel cannot be disabled right now";
 * `Print` warns "MATH=0 is ignored."). Which members a release has is per release below.
 */
export const SDPA_KERNEL = {
  flash: 1,
  efficient: 2,
  trtFused: 4,
  cudnnFlash: 8,
  math: 16,
  trtFlash: 32,
  trtCross: 64,
  trtCausal: 128,
  decoder: 512,
} as const
export type SdpaKernel = keyof typeof SDPA_KERNEL

/** What attention_common.h says at a named commit, and where (the tags' own copies are not stored). */
const COMMON_1_19 = 'onnxruntime/contrib_ops/cpu/bert/attention_common.h, stored copy at commit 01cd33b5 (the enum and variables the 1.19.2 library names; the v1.19.2 tag itself is not stored): L152-163 enum class AttentionBackend { FLASH_ATTENTION = 1, EFFICIENT_ATTENTION = 2, TRT_FUSED_ATTENTION = 4, CUDNN_FLASH_ATTENTION = 8, MATH = 16 ("unfused kernel cannot be disabled right now"), TRT_FLASH_ATTENTION = 32, TRT_CROSS_ATTENTION = 64, TRT_CAUSAL_ATTENTION = 128 }; L169 ORT_DISABLE_FUSED_ATTENTION, L172 ORT_DISABLE_FUSED_CROSS_ATTENTION, L176 ORT_ENABLE_FUSED_CAUSAL_ATTENTION, L179 ORT_ENABLE_CUDNN_FLASH_ATTENTION, L182 ORT_DISABLE_TRT_FLASH_ATTENTION, L185 ORT_DISABLE_MEMORY_EFFICIENT_ATTENTION, L188 ORT_DISABLE_FLASH_ATTENTION'
const COMMON_1_29 = 'onnxruntime/contrib_ops/cpu/bert/attention_common.h at microsoft/onnxruntime commit 7942fa7a (PR #23549 "Whisper Redesigned Solution", 2025-03-15, the commit that adds the decoder bit; read with git in the fork tianleiwu/onnxruntime, whose main carries upstream\'s history; the v1.29.0 tag is not stored): L66-81 enum class AttentionBackend, L80 `DECODER_ATTENTION = 512,  // FasterTransformer\'s decoder masked multihead attention`, L111-112 kDisableDecoderAttention = "ORT_DISABLE_DECODER_ATTENTION" ("Default is 0 (enabled)"). That commit still has TRT_CAUSAL_ATTENTION = 128 (L76), and so does every commit of that history up to 2026-02-22; the 1.29.0 library has no TRT_CAUSAL_ATTENTION label (below), and a stored attention_common.h whose commit the index does not record has the enum without it. The commit that removed it was not found'
/** 1.29: the sdpa_kernel branch at the commit that added the decoder bit (7942fa7a), not an older copy without it. */
const OPTIONS_CC_1_29 = 'onnxruntime/contrib_ops/cuda/bert/attention_kernel_options.cc at the same commit 7942fa7a: L18-32 `if (value > 0)` sets each kernel from its sdpa_kernel bit, L32 `use_decoder_attention_ = (value & static_cast<int>(AttentionBackend::DECODER_ATTENTION)) > 0`; L33-48 `else` reads the ORT_DISABLE_*/ORT_ENABLE_* variables (L47 kDisableDecoderAttention), so they count only while sdpa_kernel is 0; L108 Print label " DECODER_ATTENTION="; L113 "MATH=0 is ignored."'
/** 1.19: the commit that introduced sdpa_kernel and its enum (the 1.19.2 library has both). */
const OPTIONS_CC_1_19 = 'onnxruntime/contrib_ops/cuda/bert/attention_kernel_options.cc at microsoft/onnxruntime commit 6ffaaebb (PR #21344 "[CUDA] Attention kernel provider option", 2024-07-19, which adds sdpa_kernel; read with git in the fork tianleiwu/onnxruntime): L17-25 `if (value > 0)` sets each kernel from its sdpa_kernel bit; L26-35 `else` reads the ORT_DISABLE_*/ORT_ENABLE_* variables, so they count only while sdpa_kernel is 0; L84 "MATH=0 is ignored."'
const LABELS = 'the library\'s AttentionKernelOptions::Print labels (one per sdpa_kernel member, scripts/provider-strings.mjs, run 2026-11-26)'

const CUDA_OPTIONS = [
  'device_id', 'has_user_compute_stream', 'user_compute_stream', 'gpu_mem_limit', 'arena_extend_strategy',
  'cudnn_conv_algo_search', 'do_copy_in_default_stream', 'gpu_external_alloc', 'gpu_external_free',
  'gpu_external_empty_cache', 'cudnn_conv_use_max_workspace', 'enable_cuda_graph', 'cudnn_conv1d_pad_to_nc1d',
  'tunable_op_enable', 'tunable_op_tuning_enable', 'tunable_op_max_tuning_duration_ms',
  'enable_skip_layer_norm_strict_mode', 'prefer_nhwc', 'use_ep_level_unified_stream', 'use_tf32', 'sdpa_kernel',
] as const

const TRT_OPTIONS_1_19 = [
  'device_id', 'has_user_compute_stream', 'user_compute_stream', 'trt_max_partition_iterations', 'trt_min_subgraph_size',
  'trt_max_workspace_size', 'trt_fp16_enable', 'trt_int8_enable', 'trt_int8_calibration_table_name',
  'trt_int8_use_native_calibration_table', 'trt_dla_enable', 'trt_dla_core', 'trt_dump_subgraphs',
  'trt_engine_cache_enable', 'trt_engine_cache_path', 'trt_weight_stripped_engine_enable', 'trt_onnx_model_folder_path',
  'trt_engine_cache_prefix', 'trt_engine_decryption_enable', 'trt_engine_decryption_lib_path',
  'trt_force_sequential_engine_build', 'trt_context_memory_sharing_enable', 'trt_layer_norm_fp32_fallback',
  'trt_timing_cache_enable', 'trt_timing_cache_path', 'trt_force_timing_cache', 'trt_detailed_build_log',
  'trt_build_heuristics_enable', 'trt_sparsity_enable', 'trt_builder_optimization_level', 'trt_auxiliary_streams',
  'trt_tactic_sources', 'trt_extra_plugin_lib_paths', 'trt_profile_min_shapes', 'trt_profile_max_shapes',
  'trt_profile_opt_shapes', 'trt_cuda_graph_enable', 'trt_ep_context_embed_mode', 'trt_ep_context_file_path',
  'trt_dump_ep_context_model', 'trt_engine_hw_compatible', 'trt_onnx_bytestream', 'trt_onnx_bytestream_size',
] as const

export interface OrtRelease {
  readonly version: OrtVersion
  /** The release whose binaries were read. */
  readonly checked: string
  readonly providerOptions: Readonly<Record<OrtProvider, readonly string[]>>
  /** Attention environment variables the CUDA EP reads ("0"/"1"; ignored while sdpa_kernel is non-zero). */
  readonly attentionEnv: readonly string[]
  /** The `sdpa_kernel` bits (AttentionBackend members) this release's CUDA EP has. */
  readonly sdpaKernels: readonly SdpaKernel[]
  readonly optimizationLevels: readonly string[]
  readonly evidence: readonly string[]
}

const LEVELS = ['ORT_DISABLE_ALL', 'ORT_ENABLE_BASIC', 'ORT_ENABLE_EXTENDED', 'ORT_ENABLE_ALL'] as const
const HEADER = 'include/onnxruntime/core/session/onnxruntime_c_api.h GraphOptimizationLevel: ORT_DISABLE_ALL = 0, ORT_ENABLE_BASIC = 1, ORT_ENABLE_EXTENDED = 2, ORT_ENABLE_ALL = 99 (VERSIONS.md §4); ORT_ENABLE_LAYOUT = 3 is newer and not emitted'

export const ORT_RELEASES: Readonly<Record<OrtVersion, OrtRelease>> = {
  '1.29': {
    version: '1.29',
    checked: '1.29.0',
    providerOptions: {
      cuda: CUDA_OPTIONS,
      tensorrt: [...TRT_OPTIONS_1_19, 'trt_external_data_bytestream', 'trt_external_data_bytestream_size', 'trt_op_types_to_exclude', 'trt_bf16_enable'],
    },
    // ORT_ENABLE_FUSED_CAUSAL_ATTENTION is gone from the 1.29.0 library, as TRT_CAUSAL_ATTENTION is
    // from its enum; LEAN_ATTENTION is compiled out (no Print label, no ORT_ENABLE_LEAN_ATTENTION).
    attentionEnv: [ATTENTION_ENV.flash, ATTENTION_ENV.memoryEfficient, ATTENTION_ENV.trtFlash, ATTENTION_ENV.trtFused, ATTENTION_ENV.trtCross, ATTENTION_ENV.cudnnFlash, ATTENTION_ENV.decoder],
    sdpaKernels: ['flash', 'efficient', 'trtFused', 'cudnnFlash', 'math', 'trtFlash', 'trtCross', 'decoder'],
    optimizationLevels: LEVELS,
    evidence: [
      'npm com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9 (README: "ONNX Runtime: 1.29.0"): strings of libonnxruntime_providers_cuda.so hold every CUDA option listed (sdpa_kernel among them) and ORT_DISABLE_FLASH_ATTENTION, ORT_DISABLE_MEMORY_EFFICIENT_ATTENTION, ORT_DISABLE_TRT_FLASH_ATTENTION, ORT_DISABLE_FUSED_ATTENTION, ORT_DISABLE_FUSED_CROSS_ATTENTION, ORT_DISABLE_DECODER_ATTENTION, ORT_ENABLE_CUDNN_FLASH_ATTENTION, but not ORT_ENABLE_FUSED_CAUSAL_ATTENTION or ORT_ENABLE_LEAN_ATTENTION',
      `same library, ${LABELS}: FLASH_ATTENTION, EFFICIENT_ATTENTION, TRT_FUSED_ATTENTION, CUDNN_FLASH_ATTENTION, TRT_FLASH_ATTENTION, TRT_CROSS_ATTENTION, DECODER_ATTENTION; no TRT_CAUSAL_ATTENTION or LEAN_ATTENTION`,
      COMMON_1_29,
      OPTIONS_CC_1_29,
      'same package, libonnxruntime_providers_tensorrt.so: trt_bf16_enable, trt_fp16_enable, trt_cuda_graph_enable and "[TensorRT EP] trt_bf16_enable is set, but platform doesn\'t support bf16."',
      HEADER,
    ],
  },
  '1.19': {
    version: '1.19',
    checked: '1.19.2',
    providerOptions: { cuda: CUDA_OPTIONS, tensorrt: TRT_OPTIONS_1_19 },
    attentionEnv: [ATTENTION_ENV.flash, ATTENTION_ENV.memoryEfficient, ATTENTION_ENV.trtFlash, ATTENTION_ENV.trtFused, ATTENTION_ENV.trtCross, ATTENTION_ENV.trtCausal, ATTENTION_ENV.cudnnFlash],
    sdpaKernels: ['flash', 'efficient', 'trtFused', 'cudnnFlash', 'math', 'trtFlash', 'trtCross', 'trtCausal'],
    optimizationLevels: LEVELS,
    evidence: [
      'npm com.github.asus4.onnxruntime.linux-x64-gpu@0.2.1 (README: "ONNX Runtime: 1.19.2"): strings of libonnxruntime_providers_cuda.so hold every CUDA option listed (sdpa_kernel among them) and ORT_DISABLE_FLASH_ATTENTION, ORT_DISABLE_MEMORY_EFFICIENT_ATTENTION, ORT_DISABLE_TRT_FLASH_ATTENTION, ORT_DISABLE_FUSED_ATTENTION, ORT_DISABLE_FUSED_CROSS_ATTENTION, ORT_ENABLE_FUSED_CAUSAL_ATTENTION, ORT_ENABLE_CUDNN_FLASH_ATTENTION, but not ORT_DISABLE_DECODER_ATTENTION',
      `same library, ${LABELS}: FLASH_ATTENTION, EFFICIENT_ATTENTION, TRT_FUSED_ATTENTION, CUDNN_FLASH_ATTENTION, TRT_FLASH_ATTENTION, TRT_CROSS_ATTENTION, TRT_CAUSAL_ATTENTION; no LEAN_ATTENTION or DECODER_ATTENTION: the members of the enum at 01cd33b5`,
      COMMON_1_19,
      OPTIONS_CC_1_19,
      'same package, libonnxruntime_providers_tensorrt.so: trt_fp16_enable and trt_cuda_graph_enable, but no trt_bf16_enable, trt_op_types_to_exclude or trt_external_data_bytestream',
      'trt_bf16_enable was added by PR #24743 / #24915 (merged 2025-05-31); the first release that has it lies between 1.19.2 and 1.29.0 and was not checked (1.23.0 is likely)',
      HEADER,
    ],
  },
}

/** The oldest supported release that accepts a provider option, for refusals that name it. */
export function firstReleaseWith(provider: OrtProvider, option: string): OrtVersion | undefined {
  return [...ORT_VERSIONS].reverse().find((v) => ORT_RELEASES[v].providerOptions[provider].includes(option))
}
