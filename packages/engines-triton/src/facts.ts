/**
 * What Triton accepts, as data. Provenance: triton-inference-server/common @ 83adf7cf
 * (protobuf/model_config.proto), server @ e1db8a60 (TRITON_VERSION 2.73.0dev), tensorrtllm_backend
 * @ c2e65b88 (all_models/inflight_batcher_llm/tensorrt_llm/config.pbtxt parameter keys,
 * model_instance_state.cc), vllm_backend @ 8de0c148 (src/model.py, samples/model_repository).
 */

export const TRITON_VERSIONS = ['2.73'] as const

export const BACKENDS = ['tensorrtllm', 'vllm'] as const
export type TritonBackend = (typeof BACKENDS)[number]

/** Model repository layout the translation writes. */
export const REPOSITORY = 'model_repository'
export const MODEL_DIR = { tensorrtllm: 'tensorrt_llm', vllm: 'vllm_model' } as const

/** tensorrtllm backend: batching mode for in-flight batching (gpt_model_type). */
export const GPT_MODEL_TYPE = 'inflight_fused_batching'
