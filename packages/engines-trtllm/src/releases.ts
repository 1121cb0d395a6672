/**
 * What each supported TensorRT-LLM release accepts, as data, with where each fact comes from.
 * Two targets share the package: `trtllm` (trtllm-build flags, the TensorRT engine path) and
 * `trtllm-serve` (the PyTorch backend: `trtllm-serve MODEL` plus a YAML file of LLM API options).
 */
import type { EngineInventory, InventoryEntry } from '@kerneltune/core'

/** trtllm-build releases, newest first; the first is the default. */
export const TRTLLM_VERSIONS = ['1.0'] as const
export type TrtllmVersion = (typeof TRTLLM_VERSIONS)[number]

/** Plugin precision per activation dtype; `auto` follows the checkpoint's dtype. */
export const PLUGIN_DTYPE = { fp16: 'float16', bf16: 'bfloat16', fp8_e4m3: 'auto' } as const

/** `--gemm_plugin` per activation dtype (cuBLASLt plugin; fp8 uses its fp8 mode). */
export const GEMM_PLUGIN = { fp16: 'float16', bf16: 'bfloat16', fp8_e4m3: 'fp8' } as const

/**
 * plugin.py `validate()`: `unsupported_plugins = {100: ['gemm_swiglu_plugin',
 * 'fp8_rowwise_gemm_plugin', 'low_latency_gemm_plugin', 'low_latency_gemm_swiglu_plugin',
 * 'bert_context_fmha_fp32_acc']}`, raising "is not supported on SM {sm}". The key is
 * `get_sm_version() == 100` exactly, so SM 103 and 120 are not listed (VERSIONS.md §3.1).
 */
export const UNSUPPORTED_ON_SM: Readonly<Record<number, readonly string[]>> = {
  100: ['--gemm_swiglu_plugin', '--fp8_rowwise_gemm_plugin', '--low_latency_gemm_plugin', '--low_latency_gemm_swiglu_plugin', '--bert_context_fmha_fp32_acc'],
}

/** "--gemm_swiglu_plugin … only supported for FP8 precision on Hopper" (plugin.py help text). */
export const GEMM_SWIGLU_SM = 90

/**
 * trtllm-build flags of the 1.x tree ("TensorRT LLM" spelling): tensorrt_llm/commands/build.py @
 * 65f1d153 and tensorrt_llm/plugin/plugin.py @ c20322ff, as the reference tensorrt_llm.json
 * transcribes them (aliases as flags of their own). The release tag of those commits is not recorded; tensorrt_llm/version.py
 * read 1.0.0rc4 at another commit of the same era. An older plugin.py (035b99e0, 0.9/0.10 era)
 * has no gemm_swiglu, low_latency or use_fused_mlp flags, which is why no 0.x release is offered.
 */
const BUILD_FLAGS_1_0: Record<string, InventoryEntry> = {
  '--checkpoint_dir': { type: 'str' },
  '--model_config': { type: 'str' },
  '--build_config': { type: 'str' },
  '--model_cls_file': { type: 'str' },
  '--model_cls_name': { type: 'str' },
  '--output_dir': { type: 'str' },
  '--max_batch_size': { type: 'int' },
  '--max_input_len': { type: 'int' },
  '--max_seq_len': { type: 'int' },
  '--max_decoder_seq_len': { type: 'int' },
  '--max_beam_width': { type: 'int' },
  '--max_num_tokens': { type: 'int' },
  '--opt_num_tokens': { type: 'int' },
  '--max_encoder_input_len': { type: 'int' },
  '--max_prompt_embedding_table_size': { type: 'int' },
  '--max_multimodal_len': { type: 'int' },
  '--kv_cache_type': { choices: ['continuous', 'paged', 'disabled'] },
  '--paged_kv_cache': { type: 'str' },
  '--input_timing_cache': { type: 'str' },
  '--output_timing_cache': { type: 'str' },
  '--profiling_verbosity': { choices: ['layer_names_only', 'detailed', 'none'] },
  '--strip_plan': { takesValue: false },
  '--weight_sparsity': { takesValue: false },
  '--weight_streaming': { takesValue: false },
  '--fast_build': { takesValue: false },
  '--workers': { type: 'int' },
  '--log_level': { type: 'str' },
  '--enable_debug_output': { takesValue: false },
  '--visualize_network': { type: 'str' },
  '--dry_run': { takesValue: false },
  '--monitor_memory': { takesValue: false },
  '--logits_dtype': { choices: ['float16', 'float32'] },
  '--gather_context_logits': { takesValue: false },
  '--gather_generation_logits': { takesValue: false },
  '--gather_all_token_logits': { takesValue: false },
  '--lora_dir': { type: 'str', list: true },
  '--lora_ckpt_source': { choices: ['hf', 'nemo'] },
  '--lora_target_modules': { list: true },
  '--max_lora_rank': { type: 'int' },
  '--speculative_decoding_mode': { choices: ['draft_tokens_external', 'lookahead_decoding', 'medusa', 'explicit_draft_tokens', 'eagle'] },
  '--max_draft_len': { type: 'int' },
  '--bert_attention_plugin': { choices: ['auto', 'float16', 'float32', 'bfloat16', 'int32', 'disable'] },
  '--gpt_attention_plugin': { choices: ['auto', 'float16', 'float32', 'bfloat16', 'int32', 'disable'] },
  '--gemm_plugin': { choices: ['auto', 'float16', 'float32', 'bfloat16', 'int32', 'fp8', 'nvfp4', 'disable'] },
  '--gemm_swiglu_plugin': { choices: ['fp8', 'disable'] },
  '--fp8_rowwise_gemm_plugin': { choices: ['auto', 'float16', 'float32', 'bfloat16', 'int32', 'disable'] },
  '--lora_plugin': { choices: ['auto', 'float16', 'float32', 'bfloat16', 'int32', 'disable'] },
  '--dora_plugin': { choices: ['enable', 'disable'] },
  '--moe_plugin': { choices: ['auto', 'float16', 'float32', 'bfloat16', 'int32', 'disable'] },
  '--mamba_conv1d_plugin': { choices: ['auto', 'float16', 'float32', 'bfloat16', 'int32', 'disable'] },
  '--nccl_plugin': { choices: ['auto', 'float16', 'float32', 'bfloat16', 'int32', 'disable'] },
  '--low_latency_gemm_plugin': { choices: ['fp8', 'disable'] },
  '--low_latency_gemm_swiglu_plugin': { choices: ['fp8', 'disable'] },
  '--gemm_allreduce_plugin': { choices: ['float16', 'bfloat16', 'disable'] },
  '--context_fmha': { choices: ['enable', 'disable'] },
  '--bert_context_fmha_fp32_acc': { choices: ['enable', 'disable'] },
  '--remove_input_padding': { choices: ['enable', 'disable'] },
  '--tokens_per_block': { type: 'int' },
  '--use_paged_context_fmha': { choices: ['enable', 'disable'] },
  '--use_fp8_context_fmha': { choices: ['enable', 'disable'] },
  '--fuse_fp4_quant': { choices: ['enable', 'disable'] },
  '--multiple_profiles': { choices: ['enable', 'disable'] },
  '--paged_state': { choices: ['enable', 'disable'] },
  '--streamingllm': { choices: ['enable', 'disable'] },
  '--norm_quant_fusion': { choices: ['enable', 'disable'] },
  '--reduce_fusion': { choices: ['enable', 'disable'] },
  '--user_buffer': { choices: ['enable', 'disable'] },
  '--use_fused_mlp': { choices: ['enable', 'disable'] },
  '--pp_reduce_scatter': { choices: ['enable', 'disable'] },
}

export const TRTLLM_INVENTORIES: Readonly<Record<TrtllmVersion, EngineInventory>> = {
  '1.0': {
    flags: BUILD_FLAGS_1_0,
    env: {},
    // Executor runtime parameters as the tensorrtllm backend names them (config.pbtxt template).
    configKeys: { 'runtime-parameters.json': ['enable_chunked_context', 'cuda_graph_mode'] },
    evidence: [
      'NVIDIA/TensorRT-LLM tensorrt_llm/commands/build.py @ 65f1d153 (--kv_cache_type continuous|paged|disabled; --paged_kv_cache "Deprecated. Enabling this option is equvilient to --kv_cache_type paged")',
      'tensorrt_llm/plugin/plugin.py @ c20322ff (cli_plugin_args; unsupported_plugins for SM 100; "--gemm_swiglu_plugin … only supported for FP8 precision on Hopper")',
      'runtime parameters (enable_chunked_context, cuda_graph_mode): triton-inference-server/tensorrtllm_backend @ c2e65b88 config.pbtxt template',
      'release of these commits not recorded (1.x era); nothing was executed',
    ],
  },
}

/** The compute capability "10.0" / "sm_100a" of a device as 100, or undefined. */
export function smOf(computeCapability: string | undefined): number | undefined {
  if (!computeCapability) return undefined
  const dotted = /^\s*(\d{1,2})\.(\d)\s*$/.exec(computeCapability)
  if (dotted) return Number(dotted[1]) * 10 + Number(dotted[2])
  const sm = /^\s*sm_?(\d{2,3})[a-z]?\s*$/i.exec(computeCapability)
  return sm ? Number(sm[1]) : undefined
}
