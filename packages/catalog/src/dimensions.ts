/**
 * The six core dimensions with descriptions, defaults and quick-mode subsets. Value ids come from
 * core's CORE_DIMENSION_VALUES so engine plugins and the catalog cannot drift apart.
 *
 * Quick mode keeps, per axis, the values most engines can express and the two ends of ordered
 * axes: it drops xformers and the standalone paged_attention kernel (superseded in vLLM by
 * FlashAttention/FlashInfer paged kernels), contiguous KV (not expressible in vLLM or TGI), the
 * triton matmul path, fp8_e5m2 (engines take it for the KV cache only), conservative fusion (the
 * middle of the axis) and dynamic CUDA graphs (no engine has it as such).
 */
import { CORE_DIMENSION_NEUTRAL, CORE_DIMENSION_VALUES, type CoreDimensionId, type DimensionSpec, type DimensionValue } from '@kerneltune/core'

type Described = Record<string, string>

function values<D extends CoreDimensionId>(id: D, text: Record<(typeof CORE_DIMENSION_VALUES)[D][number], string>): DimensionValue[] {
  return CORE_DIMENSION_VALUES[id].map((v) => ({ id: v, description: (text as Described)[v]! }))
}

export const CORE_DIMENSIONS: readonly DimensionSpec[] = [
  {
    id: 'attention_backend',
    title: 'Attention backend',
    description: 'The attention kernel family used for prefill and decode.',
    values: values('attention_backend', {
      flash_attn_v2: 'FlashAttention-2 (Dao-AILab), fp16/bf16, NVIDIA Ampere+ and AMD MI200/MI300.',
      flash_attn_v3: 'FlashAttention-3, Hopper-only warp-specialised kernels with FP8 support.',
      flashinfer: 'FlashInfer paged/ragged attention kernels (NVIDIA).',
      paged_attention: 'The original vLLM PagedAttention decode kernel over a block table.',
      xformers: 'xFormers memory-efficient attention.',
      native: 'The framework’s own attention (PyTorch SDPA or the engine’s fallback).',
    }),
    defaultValue: CORE_DIMENSION_NEUTRAL.attention_backend,
    quickValues: ['flash_attn_v2', 'flash_attn_v3', 'flashinfer', 'native'],
  },
  {
    id: 'kv_layout',
    title: 'KV-cache layout',
    description: 'How the KV cache is laid out in device memory and how prefill is scheduled against it.',
    values: values('kv_layout', {
      contiguous: 'One contiguous buffer per sequence (max length reserved up front).',
      paged: 'Fixed-size blocks addressed through a block table.',
      chunked: 'Paged blocks with chunked prefill (long prompts split and batched with decodes).',
    }),
    defaultValue: CORE_DIMENSION_NEUTRAL.kv_layout,
    quickValues: ['paged', 'chunked'],
  },
  {
    id: 'matmul_path',
    title: 'Matmul path',
    description: 'Which GEMM implementation runs the linear layers.',
    values: values('matmul_path', {
      cublas: 'The vendor BLAS: cuBLAS/cuBLASLt on NVIDIA, hipBLASLt/rocBLAS on ROCm.',
      cutlass: 'NVIDIA CUTLASS template kernels (e.g. FP8 scaled-mm).',
      triton: 'Triton-generated GEMMs (torch.compile/Inductor or Triton quantized kernels).',
      machete: 'vLLM Machete mixed-input GEMM (int4/int8 weights × fp16/bf16 activations), Hopper.',
    }),
    defaultValue: CORE_DIMENSION_NEUTRAL.matmul_path,
    quickValues: ['cublas', 'cutlass', 'machete'],
  },
  {
    id: 'activation_dtype',
    title: 'Activation dtype',
    description: 'The dtype activations are computed in.',
    values: values('activation_dtype', {
      fp16: 'IEEE half precision.',
      bf16: 'bfloat16 (8-bit exponent).',
      fp8_e4m3: 'FP8 E4M3 (inference format; W8A8 FP8 GEMMs).',
      fp8_e5m2: 'FP8 E5M2 (wider range, 2-bit mantissa).',
    }),
    defaultValue: CORE_DIMENSION_NEUTRAL.activation_dtype,
    quickValues: ['fp16', 'bf16', 'fp8_e4m3'],
  },
  {
    id: 'fusion_strategy',
    title: 'Fusion strategy',
    description: 'How aggressively the engine fuses operators (compiler passes, fused plugins).',
    values: values('fusion_strategy', {
      none: 'No operator fusion beyond the engine’s fixed kernels.',
      conservative: 'Well-established fusions only (e.g. fused norm/activation).',
      aggressive: 'Every fusion the engine offers (compiler mode max, fused MLP, quant fusion).',
    }),
    defaultValue: CORE_DIMENSION_NEUTRAL.fusion_strategy,
    quickValues: ['none', 'aggressive'],
  },
  {
    id: 'cuda_graph',
    title: 'CUDA graphs',
    description: 'Whether and how kernel launches are captured into CUDA (or HIP) graphs.',
    values: values('cuda_graph', {
      off: 'Eager launches.',
      'per-shape': 'One graph per captured batch size.',
      dynamic: 'Graphs that cover varying shapes (piecewise capture or padding).',
    }),
    defaultValue: CORE_DIMENSION_NEUTRAL.cuda_graph,
    quickValues: ['off', 'per-shape'],
  },
]
