/**
 * The catalog rules trtllm-build adds: plugins that plugin.py refuses on a given SM make the
 * combinations that need them illegal there, so a sweep never plans a build that would fail.
 */
import type { CatalogExtension, Combo } from '@kerneltune/core'

const SOURCE = 'NVIDIA/TensorRT-LLM tensorrt_llm/plugin/plugin.py @ c20322ff, validate(): unsupported_plugins = {100: [\'gemm_swiglu_plugin\', \'fp8_rowwise_gemm_plugin\', \'low_latency_gemm_plugin\', \'low_latency_gemm_swiglu_plugin\', \'bert_context_fmha_fp32_acc\']} raising "is not supported on SM {sm}" (keyed on get_sm_version() == 100, so SM 103/120 are not listed)'

const cutlassFp8 = (c: Combo) => c.matmul_path === 'cutlass' && c.activation_dtype === 'fp8_e4m3'

export const TRTLLM_CATALOG: CatalogExtension = {
  dimensions: [],
  rules: [
    {
      id: 'trtllm/cutlass-fp8-gemm-not-on-sm100',
      kind: 'illegal',
      reason: "TensorRT-LLM's CUTLASS fp8 GEMM plugins (low_latency_gemm_plugin, fp8_rowwise_gemm_plugin) are refused by trtllm-build on SM 100 (B200/GB200).",
      source: SOURCE,
      dimensions: ['matmul_path', 'activation_dtype'],
      violates: (combo, { capability }) => capability.vendor === 'nvidia' && capability.smVersion === 100 && cutlassFp8(combo),
    },
  ],
}
