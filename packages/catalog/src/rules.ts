/**
 * The core legality predicates (`illegal`: cannot run) and pruning rules (`prune`: runs, but is
 * known-bad). Each reads only the hardware capability model and the combo, says why in words,
 * and names where the fact comes from.
 */
import type { Combo, HardwareCapability, LegalityRule } from '@kerneltune/core'

const FP8 = new Set(['fp8_e4m3', 'fp8_e5m2'])
const isNvidia = (c: HardwareCapability, minSm = 0) => c.vendor === 'nvidia' && c.smVersion !== undefined && c.smVersion >= minSm
const isHopper = (c: HardwareCapability) => c.vendor === 'nvidia' && c.smVersion !== undefined && c.smVersion >= 90 && c.smVersion < 100
const isGpuWithVendorKernels = (c: HardwareCapability) => c.vendor === 'nvidia' || c.vendor === 'amd'
const uses = (combo: Combo, dim: string, value: string) => combo[dim] === value

export const CORE_RULES: readonly LegalityRule[] = [
  {
    id: 'fp8-needs-sm89',
    kind: 'illegal',
    reason: 'FP8 tensor-core math needs NVIDIA Ada (sm_89), Hopper (sm_90) or newer, or AMD CDNA3 (MI300, gfx942) or newer.',
    source: 'NVIDIA CUDA C++ Programming Guide, compute-capability table (FP8 tensor cores from 8.9); NVIDIA Ada and Hopper architecture whitepapers; AMD CDNA 3 ISA reference (FP8 on MI300).',
    dimensions: ['activation_dtype'],
    violates: (combo, { capability }) => FP8.has(combo.activation_dtype ?? '') && !capability.fp8,
  },
  {
    id: 'bf16-needs-sm80',
    kind: 'illegal',
    reason: 'BF16 tensor-core math needs NVIDIA Ampere (sm_80) or newer, or AMD CDNA2/RDNA3 or newer.',
    source: 'NVIDIA A100 (Ampere) architecture whitepaper: BF16 tensor cores introduced with sm_80; Dao-AILab/flash-attention README: "bf16 requires Ampere, Ada, or Hopper GPUs".',
    dimensions: ['activation_dtype'],
    violates: (combo, { capability }) => uses(combo, 'activation_dtype', 'bf16') && !capability.bf16,
  },
  {
    id: 'flash-attn-v2-needs-sm80',
    kind: 'illegal',
    reason: 'FlashAttention-2 runs on NVIDIA Ampere, Ada and Hopper (sm_80+) and on AMD MI200/MI300; Turing and older are not supported.',
    source: 'Dao-AILab/flash-attention README: "FlashAttention-2 with CUDA currently supports Ampere, Ada, or Hopper GPUs … Support for Turing GPUs (T4, RTX 2080) is coming soon"; ROCm section: MI200 and MI300 GPUs.',
    dimensions: ['attention_backend'],
    violates: (combo, { capability: c }) =>
      uses(combo, 'attention_backend', 'flash_attn_v2') && !(isNvidia(c, 80) || (c.vendor === 'amd' && ['cdna2', 'cdna3', 'cdna4'].includes(c.generation))),
  },
  {
    id: 'flash-attn-v3-needs-hopper',
    kind: 'illegal',
    reason: 'FlashAttention-3 is written for Hopper (sm_90) only.',
    source: 'Dao-AILab/flash-attention README, FlashAttention-3 beta: "Requirements: H100 / H800 GPU, CUDA >= 12.3".',
    dimensions: ['attention_backend'],
    violates: (combo, { capability }) => uses(combo, 'attention_backend', 'flash_attn_v3') && !isHopper(capability),
  },
  {
    id: 'machete-needs-hopper',
    kind: 'illegal',
    reason: 'Machete is built on sm_90a wgmma instructions and needs a Hopper GPU.',
    source: 'vLLM vllm/model_executor/layers/quantization/kernels/mixed_precision/machete.py (MacheteLinearKernel.get_min_capability() = 90) and csrc/quantization/machete (CUTLASS 3 sm90 kernels); sm_90a features are not forward-compatible (CUDA C++ Programming Guide, architecture-specific features).',
    dimensions: ['matmul_path'],
    violates: (combo, { capability }) => uses(combo, 'matmul_path', 'machete') && !isHopper(capability),
  },
  {
    id: 'machete-needs-16bit-activations',
    kind: 'illegal',
    reason: 'Machete multiplies quantized weights by fp16 or bf16 activations; it has no FP8-activation kernels.',
    source: 'vLLM choose_mp_linear_kernel in model_executor/layers/quantization/kernels/mixed_precision/__init__.py (read at commit 00c02518, v0.8 era; VERSIONS.md §1.6) decides: Machete is reached only through this weight-only (WNA16) selection, where the first kernel whose can_implement accepts the layer config wins; those weight-only layers keep fp16/bf16 activations, and fp8 (W8A8) layers are served by the scaled-mm kernels instead. The act-type check inside MacheteLinearKernel.can_implement was not read.',
    dimensions: ['matmul_path', 'activation_dtype'],
    violates: (combo) => uses(combo, 'matmul_path', 'machete') && FP8.has(combo.activation_dtype ?? ''),
  },
  {
    id: 'flashinfer-needs-nvidia-sm75',
    kind: 'illegal',
    reason: 'FlashInfer kernels are CUDA-only and need NVIDIA Turing (sm_75) or newer.',
    source: 'flashinfer-ai/flashinfer installation docs: supported GPU architectures sm75, sm80, sm86, sm89, sm90 (and newer).',
    dimensions: ['attention_backend'],
    violates: (combo, { capability }) => uses(combo, 'attention_backend', 'flashinfer') && !isNvidia(capability, 75),
  },
  {
    id: 'xformers-needs-cuda-or-rocm',
    kind: 'illegal',
    reason: 'xFormers attention kernels are built for CUDA and ROCm GPUs only.',
    source: 'facebookresearch/xformers README: installation for CUDA and ROCm builds.',
    dimensions: ['attention_backend'],
    violates: (combo, { capability }) => uses(combo, 'attention_backend', 'xformers') && !isGpuWithVendorKernels(capability),
  },
  {
    id: 'paged-attention-needs-paged-kv',
    kind: 'illegal',
    reason: 'The PagedAttention kernel reads keys and values through a block table; a contiguous KV cache has none.',
    source: 'Kwon et al., "Efficient Memory Management for Large Language Model Serving with PagedAttention", SOSP 2023, §4.1.',
    dimensions: ['attention_backend', 'kv_layout'],
    violates: (combo) => uses(combo, 'attention_backend', 'paged_attention') && uses(combo, 'kv_layout', 'contiguous'),
  },
  {
    id: 'cutlass-needs-nvidia-sm70',
    kind: 'illegal',
    reason: 'CUTLASS is NVIDIA’s CUDA template library and targets Volta (sm_70) and newer.',
    source: 'NVIDIA/cutlass README: supported architectures Volta, Turing, Ampere, Ada, Hopper, Blackwell.',
    dimensions: ['matmul_path'],
    violates: (combo, { capability }) => uses(combo, 'matmul_path', 'cutlass') && !isNvidia(capability, 70),
  },
  {
    id: 'vendor-blas-needs-cuda-or-rocm',
    kind: 'illegal',
    reason: 'The cublas path means the GPU vendor BLAS (cuBLAS/cuBLASLt, or hipBLASLt/rocBLAS on ROCm); other devices have neither.',
    source: 'NVIDIA cuBLAS documentation; AMD ROCm documentation (hipBLASLt/rocBLAS behind PyTorch matmul on ROCm).',
    dimensions: ['matmul_path'],
    violates: (combo, { capability }) => uses(combo, 'matmul_path', 'cublas') && !isGpuWithVendorKernels(capability),
  },
  {
    id: 'triton-needs-cuda-or-rocm',
    kind: 'illegal',
    reason: 'Triton compiles GPU kernels for NVIDIA and AMD GPUs only (its CPU backend is under development).',
    source: 'triton-lang/triton README, Compatibility: supported hardware NVIDIA GPUs and AMD GPUs (ROCm); CPUs under development.',
    dimensions: ['matmul_path'],
    violates: (combo, { capability }) => uses(combo, 'matmul_path', 'triton') && !isGpuWithVendorKernels(capability),
  },
  {
    id: 'triton-below-documented-sm80',
    kind: 'prune',
    reason: 'Triton documents NVIDIA support from compute capability 8.0; older GPUs may compile but are outside what it tests.',
    source: 'triton-lang/triton README, Compatibility: "NVIDIA GPUs (Compute Capability 8.0+)".',
    dimensions: ['matmul_path'],
    violates: (combo, { capability: c }) => uses(combo, 'matmul_path', 'triton') && c.vendor === 'nvidia' && !isNvidia(c, 80),
  },
  {
    id: 'graphs-need-cuda-or-hip',
    kind: 'illegal',
    reason: 'Graph capture needs the CUDA Graphs API (NVIDIA) or HIP graphs (ROCm).',
    source: 'NVIDIA CUDA C++ Programming Guide, "CUDA Graphs"; AMD HIP documentation, "HIP graphs".',
    dimensions: ['cuda_graph'],
    violates: (combo, { capability }) => combo.cuda_graph !== undefined && combo.cuda_graph !== 'off' && !capability.cudaGraphs,
  },
  {
    id: 'e5m2-flash-attn-v2-pre-hopper',
    kind: 'prune',
    reason: 'fp8_e5m2 with FlashAttention-2 before Hopper is known-bad: FA2 takes fp16/bf16 only, so the e5m2 path falls back to conversions.',
    source: 'L1 Kernel Tuning tool author’s guide, Catalog: "pruning rules remove combinations that are known-bad (e.g. fp8_e5m2 + flash_attn_v2 on pre-Hopper)"; flash-attention README: "Datatype fp16 and bf16".',
    dimensions: ['activation_dtype', 'attention_backend'],
    violates: (combo, { capability: c }) => uses(combo, 'activation_dtype', 'fp8_e5m2') && uses(combo, 'attention_backend', 'flash_attn_v2') && !isNvidia(c, 90),
  },
]
