/**
 * What each supported `trtllm-serve` release (the PyTorch backend of TensorRT-LLM) accepts, as
 * data, with where each fact comes from (VERSIONS.md §3.2). The command line differs by release:
 * 1.0 and 1.2 take the LLM API options file with `--extra_llm_api_options`; 1.3 takes it with
 * `--config`. Whether 1.3 still accepts the old name as an alias was not verified, so 1.3 gets only
 * `--config`. 0.18.2 documents `--backend pytorch` but no options file, so no combination beyond
 * the defaults could be expressed there: it is not offered.
 */
import type { EngineInventory } from '@kerneltune/core'

/** Newest first; the first is the default. `1.3` also covers `1.3.0rc11`. */
export const TRTLLM_SERVE_VERSIONS = ['1.3', '1.2', '1.0'] as const
export type TrtllmServeVersion = (typeof TRTLLM_SERVE_VERSIONS)[number]

/** The LLM API options file a translation writes; JSON text, which YAML loaders read as YAML. */
export const LLM_API_FILE = 'llm_api_options.yaml'

/** `attn_backend` values get_attention_backend knows; any other string silently falls back to TRTLLM. */
export const ATTN_BACKENDS = ['TRTLLM', 'VANILLA', 'FLASHINFER', 'FLASHINFER_STAR_ATTENTION'] as const

/** Batch sizes captured for `per-shape` and `dynamic` graphs (the same list TGI captures by default). */
export const CUDA_GRAPH_BATCH_SIZES = [1, 2, 4, 8, 16, 32] as const

/**
 * LLM API keys (dotted for nested ones) from tensorrt_llm/llmapi/llm_args.py. The file was read at
 * unrecorded 1.x commits that agree on these fields: `attn_backend: str = Field(default='TRTLLM')`,
 * `CudaGraphConfig(StrictBaseModel)` with batch_sizes, max_batch_size and enable_padding, and
 * StrictBaseModel has `extra = "forbid"`, so a misspelt key is an error rather than ignored.
 * `kv_cache_config.dtype` is in the 1.3.0rc11 example config.yml.
 */
const LLM_API_KEYS = [
  'attn_backend',
  'cuda_graph_config', 'cuda_graph_config.batch_sizes', 'cuda_graph_config.max_batch_size', 'cuda_graph_config.enable_padding',
  'kv_cache_config', 'kv_cache_config.dtype', 'kv_cache_config.free_gpu_memory_fraction',
] as const

export interface TrtllmServeRelease {
  readonly version: TrtllmServeVersion
  /** The flag that passes the LLM API options file. */
  readonly optionsFlag: '--extra_llm_api_options' | '--config'
  readonly inventory: EngineInventory
}

const LLM_API_EVIDENCE = 'tensorrt_llm/llmapi/llm_args.py (index copies, commit not recorded; several 1.x versions agree): attn_backend, CudaGraphConfig(StrictBaseModel) batch_sizes/max_batch_size/enable_padding; idx@00dbe288 tensorrt_llm/_torch/attention_backend/utils.py get_attention_backend'
const DEFAULT_BACKEND = '1.x: the PyTorch backend is the default (VERSIONS.md §3.2, not verified from source), so no --backend flag is emitted'

function release(version: TrtllmServeVersion, optionsFlag: TrtllmServeRelease['optionsFlag'], evidence: string[]): TrtllmServeRelease {
  return {
    version,
    optionsFlag,
    inventory: { flags: { [optionsFlag]: { type: 'str' } }, env: {}, configKeys: { [LLM_API_FILE]: LLM_API_KEYS }, evidence },
  }
}

export const TRTLLM_SERVE_RELEASES: Readonly<Record<TrtllmServeVersion, TrtllmServeRelease>> = {
  '1.3': release('1.3', '--config', [
    'docs 1.3.0rc11 examples/deepseek_r1_reasoning_parser (source commit 4e69c14f): trtllm-serve … --config ./config.yml, whose config.yml sets kv_cache_config: {dtype: fp8, free_gpu_memory_fraction: …}',
    'latest docs: "Use --config to supply a YAML file"',
    LLM_API_EVIDENCE, DEFAULT_BACKEND,
  ]),
  '1.2': release('1.2', '--extra_llm_api_options', ['docs 1.2.0rc6 commands/trtllm-serve: "Using extra_llm_api_options"', LLM_API_EVIDENCE, DEFAULT_BACKEND]),
  '1.0': release('1.0', '--extra_llm_api_options', ['docs 1.0.0 commands/trtllm-serve: "Using extra_llm_api_options"', LLM_API_EVIDENCE, DEFAULT_BACKEND]),
}
