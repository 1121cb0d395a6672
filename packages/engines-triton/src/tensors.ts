/**
 * The input and output tensors of the tensorrt_llm model, as each backend release's template
 * declares them (all_models/inflight_batcher_llm/tensorrt_llm/config.pbtxt). The tensorrtllm
 * backend reads and writes tensors by these names and does not complete a config that lacks them,
 * so a config.pbtxt without them loads a model no request can reach; and a name the release does
 * not read (1.0's `seed` under 0.19) drops the request's value without a word.
 *
 * One list per release, each read from that release's own template:
 * - 0.19: triton-inference-server/tensorrtllm_backend tag v0.19.0 (c1e19638, git), input block
 *   L41-482 (60 tensors), output block L483-579 (19 tensors).
 * - 1.0: the templates left tensorrtllm_backend after v0.19.0 (commit 6a749f5); read in
 *   NVIDIA/TensorRT-LLM triton_backend/.../config.pbtxt at 0c8de69a and at 2a9abd95 (the same
 *   62 inputs and 21 outputs in both; 2a9abd95 comments enable_trt_overlap out as deprecated). The
 *   copy at ae8270b7, which tensorrtllm_backend v1.0.0 pins, could not be read.
 * They differ in five places (the tests pin each): 0.19 has `min_length` and `random_seed`
 * (v0.19.0 L223, L251; its backend reads those names, inflight_batcher_llm/src/utils.h L92, L96)
 * where 1.0 has `min_tokens` and `seed`; 0.19 has no `return_num_input_tokens` and
 * `return_num_output_tokens` inputs and no `num_input_tokens` and `num_output_tokens` outputs; and
 * 0.19 fixes `prompt_embedding_table` at TYPE_FP16 (L307-308) where 1.0 leaves it to
 * `${prompt_embedding_table_data_type}`.
 * The data types a template leaves to fill_template.py are `${logits_datatype}` (draft_logits,
 * context_logits, generation_logits) and the model's own dtype (`${encoder_input_features_data_type}`,
 * and in 1.0 `${prompt_embedding_table_data_type}`).
 */

/** A data type, or the template's placeholder for one. */
export type TensorType = `TYPE_${string}` | 'LOGITS' | 'MODEL'

export interface TemplateTensor {
  readonly name: string
  readonly dataType: TensorType
  /** Dims without the batch dimension (the model has max_batch_size > 0). */
  readonly dims: readonly number[]
  /** `reshape: { shape: [ ] }`: a [1] tensor seen by the backend as a scalar. */
  readonly reshape?: true
  readonly optional?: true
  readonly allowRaggedBatch?: true
}

type Attr = 'reshape' | 'optional' | 'ragged'

function tensor(name: string, dataType: TensorType, dims: readonly number[], ...attrs: Attr[]): TemplateTensor {
  return {
    name,
    dataType,
    dims,
    ...(attrs.includes('reshape') ? { reshape: true as const } : {}),
    ...(attrs.includes('optional') ? { optional: true as const } : {}),
    ...(attrs.includes('ragged') ? { allowRaggedBatch: true as const } : {}),
  }
}

/** Scalar per-request options: `dims: [ 1 ]`, reshaped to a scalar, optional. */
const scalar = (name: string, dataType: TensorType) => tensor(name, dataType, [1], 'reshape', 'optional')
/** Per-request lists: optional and ragged. */
const ragged = (name: string, dataType: TensorType, dims: readonly number[]) => tensor(name, dataType, dims, 'optional', 'ragged')

/** 1.0's inputs (TensorRT-LLM 0c8de69a and 2a9abd95), in the template's order. */
const INPUTS_1_0: readonly TemplateTensor[] = [
  ragged('input_ids', 'TYPE_INT32', [-1]),
  ragged('encoder_input_features', 'MODEL', [-1, -1]),
  scalar('encoder_output_lengths', 'TYPE_INT32'),
  tensor('input_lengths', 'TYPE_INT32', [1], 'reshape'),
  tensor('request_output_len', 'TYPE_INT32', [1], 'reshape'),
  scalar('num_return_sequences', 'TYPE_INT32'),
  ragged('draft_input_ids', 'TYPE_INT32', [-1]),
  ragged('decoder_input_ids', 'TYPE_INT32', [-1]),
  scalar('decoder_input_lengths', 'TYPE_INT32'),
  ragged('draft_logits', 'LOGITS', [-1, -1]),
  scalar('draft_acceptance_threshold', 'TYPE_FP32'),
  scalar('end_id', 'TYPE_INT32'),
  scalar('pad_id', 'TYPE_INT32'),
  ragged('stop_words_list', 'TYPE_INT32', [2, -1]),
  ragged('bad_words_list', 'TYPE_INT32', [2, -1]),
  ragged('embedding_bias', 'TYPE_FP32', [-1]),
  scalar('beam_width', 'TYPE_INT32'),
  scalar('temperature', 'TYPE_FP32'),
  scalar('runtime_top_k', 'TYPE_INT32'),
  scalar('runtime_top_p', 'TYPE_FP32'),
  scalar('runtime_top_p_min', 'TYPE_FP32'),
  scalar('runtime_top_p_decay', 'TYPE_FP32'),
  scalar('runtime_top_p_reset_ids', 'TYPE_INT32'),
  scalar('len_penalty', 'TYPE_FP32'),
  scalar('early_stopping', 'TYPE_BOOL'),
  scalar('repetition_penalty', 'TYPE_FP32'),
  scalar('min_tokens', 'TYPE_INT32'),
  scalar('beam_search_diversity_rate', 'TYPE_FP32'),
  scalar('presence_penalty', 'TYPE_FP32'),
  scalar('frequency_penalty', 'TYPE_FP32'),
  scalar('seed', 'TYPE_UINT64'),
  scalar('return_log_probs', 'TYPE_BOOL'),
  scalar('return_context_logits', 'TYPE_BOOL'),
  scalar('return_generation_logits', 'TYPE_BOOL'),
  scalar('return_perf_metrics', 'TYPE_BOOL'),
  scalar('return_num_input_tokens', 'TYPE_BOOL'),
  scalar('return_num_output_tokens', 'TYPE_BOOL'),
  scalar('exclude_input_in_output', 'TYPE_BOOL'),
  scalar('stop', 'TYPE_BOOL'),
  scalar('streaming', 'TYPE_BOOL'),
  ragged('prompt_embedding_table', 'MODEL', [-1, -1]),
  ragged('prompt_table_extra_ids', 'TYPE_UINT64', [-1]),
  scalar('prompt_vocab_size', 'TYPE_INT32'),
  ragged('cross_attention_mask', 'TYPE_BOOL', [-1, -1]),
  tensor('mrope_rotary_cos_sin', 'TYPE_FP32', [-1], 'optional'),
  tensor('mrope_position_deltas', 'TYPE_INT64', [1], 'optional'),
  scalar('lora_task_id', 'TYPE_UINT64'),
  ragged('lora_weights', 'TYPE_FP16', [-1, -1]),
  ragged('lora_config', 'TYPE_INT32', [-1, 3]),
  ragged('context_phase_params', 'TYPE_UINT8', [-1]),
  ragged('skip_cross_attn_blocks', 'TYPE_BOOL', [1]),
  ragged('retention_token_range_starts', 'TYPE_INT32', [-1]),
  ragged('retention_token_range_ends', 'TYPE_INT32', [-1]),
  ragged('retention_token_range_priorities', 'TYPE_INT32', [-1]),
  ragged('retention_token_range_durations_ms', 'TYPE_INT32', [-1]),
  ragged('retention_decode_priority', 'TYPE_INT32', [1]),
  ragged('retention_decode_duration_ms', 'TYPE_INT32', [1]),
  ragged('guided_decoding_guide_type', 'TYPE_STRING', [1]),
  ragged('guided_decoding_guide', 'TYPE_STRING', [1]),
  ragged('lookahead_window_size', 'TYPE_INT32', [1]),
  ragged('lookahead_ngram_size', 'TYPE_INT32', [1]),
  ragged('lookahead_verification_set_size', 'TYPE_INT32', [1]),
]

/** 1.0's outputs. */
const OUTPUTS_1_0: readonly TemplateTensor[] = [
  tensor('output_ids', 'TYPE_INT32', [-1, -1]),
  tensor('sequence_length', 'TYPE_INT32', [-1]),
  tensor('cum_log_probs', 'TYPE_FP32', [-1]),
  tensor('output_log_probs', 'TYPE_FP32', [-1, -1]),
  tensor('context_logits', 'LOGITS', [-1, -1]),
  tensor('generation_logits', 'LOGITS', [-1, -1, -1]),
  tensor('batch_index', 'TYPE_INT32', [1]),
  tensor('sequence_index', 'TYPE_INT32', [1]),
  tensor('context_phase_params', 'TYPE_UINT8', [-1]),
  tensor('kv_cache_alloc_new_blocks', 'TYPE_INT32', [1]),
  tensor('kv_cache_reused_blocks', 'TYPE_INT32', [1]),
  tensor('kv_cache_alloc_total_blocks', 'TYPE_INT32', [1]),
  tensor('arrival_time_ns', 'TYPE_INT64', [1]),
  tensor('first_scheduled_time_ns', 'TYPE_INT64', [1]),
  tensor('first_token_time_ns', 'TYPE_INT64', [1]),
  tensor('last_token_time_ns', 'TYPE_INT64', [1]),
  tensor('acceptance_rate', 'TYPE_FP32', [1]),
  tensor('total_accepted_draft_tokens', 'TYPE_INT32', [1]),
  tensor('total_draft_tokens', 'TYPE_INT32', [1]),
  tensor('num_input_tokens', 'TYPE_INT32', [1]),
  tensor('num_output_tokens', 'TYPE_INT32', [1]),
]

/**
 * 0.19's template is 1.0's with the five differences read at v0.19.0 (c1e19638), applied here
 * rather than spelled out twice: the inputs (L41-482) rename `min_tokens` and `seed` (L223, L251),
 * lack the two `return_num_*_tokens` inputs and fix `prompt_embedding_table` at TYPE_FP16
 * (L307-308); the outputs (L483-579) lack `num_input_tokens` and `num_output_tokens`. Order is
 * the template's in both. tensors.test.ts pins the counts (60/19) and each difference.
 */
const RENAMED_IN_0_19: Readonly<Record<string, string>> = { min_tokens: 'min_length', seed: 'random_seed' }
const NOT_IN_0_19 = new Set(['return_num_input_tokens', 'return_num_output_tokens', 'num_input_tokens', 'num_output_tokens'])
const FIXED_TYPE_IN_0_19: Readonly<Record<string, TensorType>> = { prompt_embedding_table: 'TYPE_FP16' }

function as0_19(list: readonly TemplateTensor[]): TemplateTensor[] {
  return list
    .filter((t) => !NOT_IN_0_19.has(t.name))
    .map((t) => ({ ...t, name: RENAMED_IN_0_19[t.name] ?? t.name, dataType: FIXED_TYPE_IN_0_19[t.name] ?? t.dataType }))
}

const INPUTS_0_19: readonly TemplateTensor[] = as0_19(INPUTS_1_0)
const OUTPUTS_0_19: readonly TemplateTensor[] = as0_19(OUTPUTS_1_0)

export interface TemplateTensors {
  readonly inputs: readonly TemplateTensor[]
  readonly outputs: readonly TemplateTensor[]
}

/** Each backend release's template tensors, keyed by the release (TRITON_VERSIONS). */
export const TEMPLATE_TENSORS = {
  '1.0': { inputs: INPUTS_1_0, outputs: OUTPUTS_1_0 },
  '0.19': { inputs: INPUTS_0_19, outputs: OUTPUTS_0_19 },
} as const satisfies Readonly<Record<string, TemplateTensors>>

/** 1.0's inputs; another release's are `TEMPLATE_TENSORS[version].inputs`. */
export const TEMPLATE_INPUTS: readonly TemplateTensor[] = INPUTS_1_0
/** 1.0's outputs; another release's are `TEMPLATE_TENSORS[version].outputs`. */
export const TEMPLATE_OUTPUTS: readonly TemplateTensor[] = OUTPUTS_1_0

/** How the placeholders are filled: what build-engine.sh builds, and the checkpoint's dtype when the combination names it. */
export interface TensorTypes {
  /** `${logits_datatype}`: the engine's --logits_dtype. */
  readonly logits: `TYPE_${string}`
  /** The model dtype (`${encoder_input_features_data_type}`, `${prompt_embedding_table_data_type}`), when known. */
  readonly model?: `TYPE_${string}`
}

/** The template's tensors with their placeholders filled; those of an unknown model dtype are left out. */
export function resolveTensors(list: readonly TemplateTensor[], types: TensorTypes): TemplateTensor[] {
  return list.flatMap((t) => {
    if (t.dataType === 'LOGITS') return [{ ...t, dataType: types.logits }]
    if (t.dataType === 'MODEL') return types.model ? [{ ...t, dataType: types.model }] : []
    return [t]
  })
}
