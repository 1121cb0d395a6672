/**
 * The physics of one llama.cpp step, as time terms. A step reads the (active, MoE-covered) weights
 * once per micro-batch, reads the KV cache, does 2 FLOPs per active parameter per token (at the
 * datasheet rate, and within the board's power where it is known) plus the attention FLOPs,
 * dequantizes each weight it reads (legacy CUDA prefill: into an F16 copy), streams the activations
 * (and, without flash attention, the attention scores) through memory, and pays a fixed cost per
 * layer (kernel launches, synchronisation) and per step (sampling, graph build). Each term is the time at 100%
 * of the specification (bytes ÷ bandwidth, FLOPs ÷ FLOP rate) or a unit time for the overheads; the
 * model learns one positive multiplier per term (1 ÷ efficiency), adjusted per hardware class,
 * vendor and weight format, so a prediction is a sum of physically meaningful times.
 */
import { PLAIN_FORMATS, attendedContext, attnFlopsPerToken, kvBytesPerToken, matmulFlops, moeWeightCoverage, weightBytesPerParam, type ThroughputQuery } from './query.ts'

export const PHYSICS_TERMS = ['mem', 'moe', 'kv', 'compute', 'energy', 'dequant', 'dqcopy', 'attn', 'score', 'act', 'layer', 'step'] as const
export type PhysicsTerm = (typeof PHYSICS_TERMS)[number]

/** Unit costs of the overhead terms: 10 µs per layer and 100 µs per step at multiplier 1. */
const LAYER_UNIT_S = 1e-5
const STEP_UNIT_S = 1e-4
/**
 * Activation traffic per token per layer per element of the hidden width: the norms, RoPE, the
 * activation functions, the F32 → F16 conversions of each matrix product's input and its output
 * stream the activations through memory about 30 times (4-byte values); the multiplier learns the rest.
 */
const ACT_BYTES = 128
/**
 * Prefill of a quantized model through a BLAS GEMM (`dequantBlas`: legacy CUDA/ROCm, which used cuBLAS
 * for batches over 32; today SYCL, and CUDA on chips without MMQ): each micro-batch dequantizes the
 * weights into an F16 buffer (2 bytes written) that the GEMM reads back (2 bytes), a bandwidth cost.
 * Metal dequantizes tiles inside its matrix kernel and current MMQ kernels read the quantized blocks,
 * so neither writes that copy.
 */
const DQ_COPY_BYTES = 4
/**
 * Attention without flash attention (legacy builds): the KQ scores are written and read back as F32
 * about four times (product, softmax, KQV), 16 bytes per score; one score per query head, i.e. per
 * 4 × head size (128) attention FLOPs, so 16 ÷ 512 bytes per attention FLOP.
 */
const SCORE_BYTES_PER_FLOP = 16 / 512
/**
 * Energy per FLOP of prefill's matrix products at multiplier 1 (1 pJ): a card capped at its board
 * power cannot sustain its datasheet tensor rate, so its prefill also takes FLOPs × J/FLOP ÷ watts
 * (the two times add, like a roofline's two limits). Only where the board power is known.
 */
const JOULES_PER_FLOP = 1e-12
/** llama.cpp's default micro-batch: prefill reads the weights once per 512 tokens. */
const DEFAULT_UBATCH = 512

/**
 * Layer count: the query's, else a proxy anchored on LLaMA (7B has 32 layers, depth grows with
 * the cube root of size), which is within 20% for the 3B–70B models of the data.
 */
export function layersOf(q: ThroughputQuery): number {
  if (q.layers !== undefined) return q.layers
  const active = q.activeParamsB ?? q.paramsB
  return Math.max(2, Math.round(32 * Math.cbrt(q.paramsB / 7) * (active < q.paramsB ? 0.9 : 1)))
}

/**
 * The class of a device, from what a query says about it: CPU, Apple GPU, NVIDIA unified memory
 * (GB10), NVIDIA HBM (datacenter, ≥ 1.5 TB/s), NVIDIA GDDR (GeForce/RTX/A40/L40S), vendor-unified (an
 * iGPU on system memory: Strix Halo), AMD HBM (Instinct, ≥ 1 TB/s) or vendor-gpu (a discrete card).
 * Efficiencies are learned per class and per vendor, so an unseen chip borrows from its class.
 */
export function hardwareClass(q: ThroughputQuery): string {
  if (q.device === 'cpu') return 'cpu'
  if (q.vendor === 'apple') return 'apple-gpu'
  if (q.vendor === 'nvidia') return q.unifiedMemory ? 'nvidia-unified' : q.memBwGbs >= 1500 ? 'nvidia-hbm' : 'nvidia-gddr'
  // An iGPU sharing system memory (Strix Halo) is not a discrete card of its vendor (issue 38: the
  // AMD discrete cards had only the Radeon 8060S's efficiency to borrow).
  if (q.unifiedMemory) return `${q.vendor}-unified`
  // AMD's HBM datacenter parts (GCN 5 and CDNA: MI50/MI60 1,024 GB/s and up) are not its Radeon cards
  // (RDNA, GDDR, at most 960 GB/s): other compute units, other kernels in ggml-hip (MFMA, not WMMA),
  // as NVIDIA's HBM and GDDR classes are split. Without it the MI50/MI100 micro-batch rows, the only
  // AMD discrete rows after the Pi-hosted R9700 went, set every Radeon's efficiency (issue 38).
  if (q.vendor === 'amd' && q.memBwGbs >= 1000) return 'amd-hbm'
  return `${q.vendor}-gpu`
}

/** Which optional effects a fitted model carries (a variant of the nested selection). */
export interface EffectOptions {
  /**
   * Prefill's matrix products on current GPU builds get an effect per backend and kernel family:
   * quantized weights against float (F16, BF16, F32) ones. On CUDA they are different kernels:
   * ggml_cuda_mul_mat sends a quantized matrix with a prompt-sized batch to MMQ (integer tensor
   * cores, ggml_cuda_should_use_mmq: every legacy, K, IQ and FP4 format on Turing or later) and an
   * F16 one to cuBLAS (llama.cpp de3ff815ea7d, ggml/src/ggml-cuda/ggml-cuda.cu ggml_cuda_mul_mat and
   * mmq.cu ggml_cuda_should_use_mmq); the H100 and H200 rows show cuBLAS F16 prefill at about twice
   * MMQ's rate on one die.
   */
  mmKernels?: boolean
  /**
   * Quantized prefill on current GPU builds multiplies at the int8 rate of the units llama.cpp's
   * integer kernels use (`int8KernelTops`: MMQ on CUDA and ROCm, integer dot products on Vulkan devices without
   * matrix units; none on SYCL or on Vulkan with cooperative matrices),
   * and a per-backend exponent learns how far the FP16 matrix rate binds instead (`bind:fp16:<backend>`,
   * `kernelFlops`). Off: every GPU prefill multiplies at `tflops` (v3.2.0).
   */
  int8Kernels?: boolean
  /**
   * Prefill of a mixture-of-experts model gets an effect of its own on its products, per backend
   * (`moe:prefill:<backend>`):
   * llama.cpp multiplies each expert's weights by only the tokens routed to it (a 512-token micro-batch
   * gives each of 128 experts about 32 tokens at 8 used), far from the tile sizes its matrix kernels
   * are built for, so a MoE prompt runs its active FLOPs at a lower rate than a dense one. Without it
   * the MoE rows (most current-build rows of the RTX 5070 Ti, 5060 Ti and GB10) set the dense cards'
   * prefill efficiency too (issue 38, third round).
   */
  moePrefill?: boolean
  /**
   * Hardware-class effects learned apart for current builds (`class:<class>:current`) on the terms
   * named: `decode`, every term of a decode step; `memory`, the weight and KV traffic and the per-layer
   * and per-step costs of both phases. Absent: one class effect for every build. The 2023–24 builds'
   * kernels could not stream an HBM card's bandwidth (the A100's and H100 PCIe's Llama 3 8B F16 decode
   * reached 42% and 55% of it, the RTX 4090's 86%), while the current build on the H100 SXM reaches 80%
   * (our kit run): a class efficiency from old builds misleads its current ones, and a class measured
   * only on old builds says so as an extrapolation (issue 38, fourth round). Activation traffic stays
   * shared: in a prompt it is proportional to the products, and with its class effect split apart it
   * stood in for them (a development run put a third of the RTX 4090's Llama 2 7B pp512 time there).
   */
  currentClasses?: 'decode' | 'memory'
}

/** The effect options a fit asked for, only those set. */
export function effectOptionsOf(opts: EffectOptions): EffectOptions {
  const on: EffectOptions = {}
  if (opts.mmKernels) on.mmKernels = true
  if (opts.int8Kernels) on.int8Kernels = true
  if (opts.moePrefill) on.moePrefill = true
  if (opts.currentClasses) on.currentClasses = opts.currentClasses
  return on
}

/** The terms whose class effect `currentClasses: 'memory'` splits by build age (weights, KV, overheads). */
const MEMORY_TERMS: ReadonlySet<PhysicsTerm> = new Set<PhysicsTerm>(['mem', 'kv', 'layer', 'step'])

/** The hardware-class key of a term: `class:<class>`, or `class:<class>:current` where the options split it. */
function classKey(q: ThroughputQuery, term: PhysicsTerm, cls: string, opts: EffectOptions): string {
  const split = opts.currentClasses === 'decode' ? q.phase === 'decode' : opts.currentClasses === 'memory' && MEMORY_TERMS.has(term)
  return split && !isLegacy(q) ? `class:${cls}:current` : `class:${cls}`
}

/** The effect keys that adjust a term's multiplier for this query (unseen keys weigh nothing). */
export function effectKeys(q: ThroughputQuery, term: PhysicsTerm, opts: EffectOptions = {}): string[] {
  // One share for every device: only two chips have batched MoE rows, too few to split it by class.
  if (term === 'moe') return []
  const cls = hardwareClass(q)
  const keys = cls === 'cpu' ? ['class:cpu', `cpu-vendor:${q.vendor}`] : [`vendor:${q.vendor}`, classKey(q, term, cls, opts)]
  // A weight format changes how its bytes stream and dequantize, and decode's matrix-vector kernels;
  // not the rate of prefill's matrix products, whose format effects were each learned from one
  // current-build chip (Q8_0 and MXFP4 exist only there) and carried its kernels to the other.
  // A CPU's format effects are its own: its SIMD dot products share no code with a GPU's kernels.
  if (term === 'mem' || term === 'dequant' || (term === 'compute' && q.phase === 'decode')) keys.push(cls === 'cpu' ? `cpu-quant:${q.quant}` : `quant:${q.quant}`)
  // Build age, per backend (CUDA, Metal and CPU kernels changed differently) and keyed on the current
  // builds: a backend whose current build has not been measured keeps its measured efficiency.
  const backend = backendOf(q)
  if (!isLegacy(q)) keys.push(`era:current:${backend}`)
  if (opts.mmKernels && term === 'compute' && q.phase === 'prefill' && cls !== 'cpu' && !isLegacy(q)) keys.push(`mm:${PLAIN_FORMATS.has(q.quant) ? 'float' : 'quantized'}:${backend}`)
  if (opts.int8Kernels && term === 'compute' && int8Binds(q)) keys.push(`bind:fp16:${backend}`)
  if (opts.moePrefill && term === 'compute' && q.phase === 'prefill' && (q.activeParamsB ?? q.paramsB) < q.paramsB) keys.push(`moe:prefill:${backend}`)
  // The 2023 tables (./main, before 2024's prefill kernels): an effect of their own on prefill.
  if (q.engineEra === 'legacy-2023' && q.phase === 'prefill') keys.push(`era:2023:${backend}`)
  return keys
}

/**
 * The llama.cpp backend a query runs on: its kernels, and how they changed between builds. The
 * query's `backend` when given, else the vendor's usual one (Apple Metal, NVIDIA CUDA, AMD ROCm,
 * Intel SYCL; a CPU device the CPU backend).
 */
export function backendOf(q: Pick<ThroughputQuery, 'device' | 'vendor' | 'backend'>): string {
  if (q.backend !== undefined) return q.backend
  if (q.device === 'cpu') return 'cpu'
  return q.vendor === 'apple' ? 'metal' : q.vendor === 'nvidia' ? 'cuda' : q.vendor === 'amd' ? 'rocm' : q.vendor === 'intel' ? 'sycl' : q.vendor
}

/** A build before mid-2024 (no flash attention, cuBLAS prefill of quantized weights on CUDA). */
export const isLegacy = (q: ThroughputQuery): boolean => q.engineEra === 'legacy' || q.engineEra === 'legacy-2023'

/**
 * A GPU prefill of quantized weights on a current build with a known int8 rate: llama.cpp's integer
 * matrix kernels (MMQ: `ggml_cuda_should_use_mmq` takes every quantized format on CUDA and HIP) run it,
 * so its products are timed at the int8 rate (`kernelFlops` with `int8Kernels`).
 */
export const int8Binds = (q: ThroughputQuery): boolean => q.phase === 'prefill' && onIntegerKernels(q)

/** Quantized weights on a current GPU build whose backend has integer matrix kernels with a known rate. */
const onIntegerKernels = (q: ThroughputQuery): boolean =>
  q.device !== 'cpu' && !isLegacy(q) && !PLAIN_FORMATS.has(q.quant) && int8KernelTops(q) !== undefined

const MMVQ_MAX_BATCH = 8
/**
 * Decode of a batch above 8 sequences on a current CUDA or HIP build: `ggml_cuda_mul_mat` takes the
 * matrix-vector kernel (MMVQ) only up to `MMVQ_MAX_BATCH_SIZE` columns (8, ggml-cuda/mmvq.cuh:3;
 * ggml-cuda.cu:2398–2400) and MMQ beyond, the prompt's integer tensor-core kernel, so such a step's
 * products are timed at the same int8 rate (`kernelFlops` with `int8Kernels`; the learned binding
 * exponent stays prefill's). Issue 38, fourth round: the GB10's batched decode rows (16 and 32
 * sequences) were timed at its FP16 rate.
 */
export const mmqDecode = (q: ThroughputQuery): boolean =>
  q.phase === 'decode' && q.batch > MMVQ_MAX_BATCH && ['cuda', 'rocm'].includes(backendOf(q)) && onIntegerKernels(q)

/**
 * The int8 rate (TOPS) llama.cpp's integer matrix kernels reach on a query's backend, or none where
 * that backend has none (issue 38, read in ggml at 5bb72360, the sync of llama.cpp bf76ac77,
 * 2026-05-05):
 * - SYCL has no integer matrix kernel: `ggml_sycl_supports_mmq` returns false for every type
 *   (ggml-sycl.cpp:3289), so quantized prefill dequantizes to F16 and runs oneDNN's GEMM
 *   (`ggml_sycl_op_mul_mat_sycl`, ggml-sycl.cpp:2148–2240): the FP16 matrix rate binds, and the F16
 *   copy is written and read back (`dequantBlas`).
 * - Vulkan builds its integer (MMQ) pipelines only on a device with neither NVIDIA's coopmat2 nor KHR
 *   cooperative matrices: `ggml_vk_load_shaders` is `if (coopmat2) … else if (coopmat_support) … else if
 *   (fp16) { … CREATE_MMQ … }` (ggml-vulkan.cpp:3647, 3727, 3849; the MMQ pipelines at 3914–3926 and
 *   4083–4093), and `ggml_vk_get_mul_mat_mat_pipeline` returns none for Q8_1 activations when they are
 *   empty (:6223–6228), so `ggml_vk_mul_mat_q_f16` falls back to dequantizing tiles into the FP16
 *   matrix multiply (:7635–7640). KHR coopmat is on for every NVIDIA device, for Intel Xe2 only and for
 *   AMD on RADV (on AMD's own drivers RDNA 3 only), `ggml_vk_khr_cooperative_matrix_support` (:16327).
 *   So a Vulkan device with matrix units (an NVIDIA card with a tensor-core int8 figure, or a preset
 *   whose FP16 matrix rate exceeds its shader ALUs' rate, like the Arc Pro B70's XMX) multiplies
 *   quantized prompts at its FP16 matrix rate: no int8 figure binds (issue 38, third round: v3.4.0 read
 *   this as MMQ on the B70 and timed it at 2 × `fp16VectorTflops`). A device without them runs MMQ's
 *   packed int8 dot products (`dotPacked4x8EXT`, vulkan-shaders/mul_mmq_funcs.glsl:47) on the ALUs,
 *   4 int8 multiply-adds per FP32 lane, twice the packed FP16 rate.
 * - CUDA and ROCm: the preset's figure (MMQ on int8 tensor or matrix cores, else DP4A/dot4). On CUDA
 *   capped at compute units × clock at a GeForce SM's rate (`unitClockRate`): MMQ issues its int8
 *   products as the warp-level `mma.sync` (ggml-cuda/mma.cuh:853, m16n8k32 s8; no `wgmma`, Hopper's
 *   warpgroup instruction, anywhere in ggml-cuda at 5bb72360) and spends the rest of a tile on the
 *   SM's ALUs (loading and unpacking blocks, FP32 scales), work that scales with SMs × clock. Where the
 *   datasheet's int8 rate per SM and clock is a GeForce's (every GeForce and RTX card from Ampere on)
 *   the cap changes nothing; it times the H100 (4× per SM and clock, 1,979 TOPS) and the A100 (2×) at
 *   the GeForce rate. An assumption, not a measured `mma.sync` rate: it was written after comparing the
 *   H100 kit run's 8B Q4_0 pp512 (10,953 tok/s) with the RTX 4090's Llama 2 7B figure of issue 38
 *   (11,993), at SMs × clock 0.81 × the 4090's (issue 38, fourth round; it replaces v3.5.0's learned
 *   units × clock exponent, which no outer fold could learn without the H100's own rows).
 */
export function int8KernelTops(q: ThroughputQuery): number | undefined {
  const backend = backendOf(q)
  if (backend === 'sycl') return undefined
  if (backend === 'vulkan') {
    if (vulkanMatrixUnits(q)) return undefined
    return q.fp16VectorTflops !== undefined ? 2 * q.fp16VectorTflops : q.int8Tops
  }
  if (backend === 'cuda' && q.int8Tops !== undefined) return Math.min(q.int8Tops, unitClockRate(q) ?? Number.POSITIVE_INFINITY)
  return q.int8Tops
}

/**
 * Whether ggml-vulkan multiplies a query's quantized prompts on matrix units (cooperative matrices,
 * int8KernelTops): an NVIDIA chip with tensor cores (its preset carries the tensor int8 figure) or a
 * chip whose FP16 matrix rate exceeds its shader ALUs' (`fp16VectorTflops`).
 */
export const vulkanMatrixUnits = (q: ThroughputQuery): boolean =>
  (q.vendor === 'nvidia' && q.int8Tops !== undefined) || (q.fp16VectorTflops !== undefined && q.tflops > q.fp16VectorTflops)

/**
 * Quantized GPU prefill whose kernels dequantize each weight into an F16 buffer for a BLAS GEMM (2
 * bytes written, 2 read back per micro-batch): llama.cpp before mid-2024 on CUDA and ROCm; today
 * SYCL (no integer matrix kernel), and CUDA on a chip without MMQ at prompt-sized batches, the ones
 * without an int8 figure: compute capability 6.0 has no DP4A, so `ggml_cuda_should_use_mmq` returns
 * false (mmq.cu:311), and Volta has FP16 tensor cores, so MMQ yields to cuBLAS from 64 tokens on
 * (mmq.cu:320, MMQ_DP4A_MAX_BATCH_SIZE 64 in mmq.cuh:12). A CUDA query says so by carrying the
 * kernel figures (`fp16VectorTflops`, as the P100 and V100 presets do) without an int8 rate; one without
 * kernel figures is taken to run MMQ, as every NVIDIA chip from Turing on does.
 */
export function dequantBlas(q: ThroughputQuery): boolean {
  if (q.phase !== 'prefill' || q.device === 'cpu' || PLAIN_FORMATS.has(q.quant)) return false
  if (isLegacy(q)) return q.vendor === 'nvidia' || q.vendor === 'amd'
  const backend = backendOf(q)
  return backend === 'sycl' || (backend === 'cuda' && q.vendor === 'nvidia' && q.int8Tops === undefined && q.fp16VectorTflops !== undefined)
}

/**
 * The covariate of an effect key: 1 for the class, vendor, format and backend effects; for
 * `bind:fp16:<backend>` the log of int8 over FP16 matrix rate, so its learned value w scales the
 * rate from the int8 figure (w = 0) to the FP16 one (w = 1): which figure binds, per backend. Only
 * downwards: where the FP16 matrix rate is above the integer kernel's (the H100's 989 TFLOPS against
 * its capped MMQ rate, `int8KernelTops`) the covariate is 0, since MMQ never runs on the FP16 units;
 * before v3.6.0's cap no chip had such a pair, and with the cap the exponent lifted the H100 back above
 * it (issue 38, fourth round).
 */
export function effectCoef(q: ThroughputQuery, key: string): number {
  return key.startsWith('bind:') ? Math.max(0, Math.log((int8KernelTops(q) ?? q.tflops) / q.tflops)) : 1
}

/**
 * Compute units × boost clock as an int8 rate (TOPS): 2,048 int8 operations per unit per cycle, the
 * RTX 4090's dense tensor rate per SM and clock (660.6 TOPS ÷ 128 SMs ÷ 2.52 GHz), which every GeForce
 * and RTX card from Ampere on shares (the cap of CUDA's MMQ rate in `int8KernelTops`). Undefined
 * without both figures.
 */
const INT8_OPS_PER_UNIT_CYCLE = 2048
export function unitClockRate(q: Pick<ThroughputQuery, 'computeUnits' | 'clockMhz'>): number | undefined {
  return q.computeUnits !== undefined && q.clockMhz !== undefined ? (q.computeUnits * q.clockMhz * 1e6 * INT8_OPS_PER_UNIT_CYCLE) / 1e12 : undefined
}

/** ARM's FP16 FMA (8 lanes per 128-bit register) against its FP32 FMA (4 lanes). */
const ARM_FP16_SPEEDUP = 2

/**
 * The rate (FLOP/s) of the instructions llama.cpp's kernels multiply a query's weights with. A GPU:
 * its `tflops`. A CPU's `tflops` is its FP32 FMA rate; its decode multiplies quantized weights as
 * int8 dot products against 8-bit activations (`matmulFlops`: AVX-VNNI / AVX512-VNNI, ARM SDOT, four
 * multiply-adds per 32-bit lane), F16 weights with FP16 FMAs on ARM (the Apple CPUs: ggml's F16 dot
 * product is native there) and F16, BF16 and F32 as FP32 on x86 (F16C converts, FP32 FMAs multiply).
 * A CPU's prefill keeps the FP32 rate: every CPU prefill row of the data is a 2023 build, which
 * dequantized the weights to F32 for a BLAS SGEMM (Accelerate on macOS); a current build's int8
 * matrix kernels are measured by no row, and at the int8 rate they would inherit the GPUs' prefill
 * efficiency (tensor cores at about 75%), far from what per-block float scaling lets a CPU reach.
 */
export function kernelFlops(q: ThroughputQuery, opts: EffectOptions = {}): number {
  if (opts.int8Kernels && (int8Binds(q) || mmqDecode(q))) return int8KernelTops(q)! * 1e12
  const fp32 = q.tflops * 1e12
  if (q.device !== 'cpu' || q.phase === 'prefill') return fp32
  if (!PLAIN_FORMATS.has(q.quant)) return matmulFlops(q)
  return q.vendor === 'apple' && q.quant === 'F16' ? fp32 * ARM_FP16_SPEEDUP : fp32
}

export interface StepTerms {
  /** Tokens produced (decode) or consumed (prefill) by one step. */
  tokens: number
  /** Seconds at multiplier 1, in PHYSICS_TERMS order, one set per phase (the other phase's are 0). */
  phi: number[]
}

/**
 * The step's terms. KV bytes and attention FLOPs per context token are the model's when the query
 * states them, else proxies anchored on LLaMA-3-8B (128 KiB and 4·d·layers = 0.5 MFLOP) scaled with
 * √(active parameters); sliding-window layers attend to at most their window (`attendedContext`).
 */
export function stepTerms(q: ThroughputQuery, opts: EffectOptions = {}): StepTerms {
  const active = (q.activeParamsB ?? q.paramsB) * 1e9
  const bw = q.memBwGbs * 1e9
  const flops = q.tflops * 1e12
  const prefill = q.phase === 'prefill'
  const tokens = prefill ? q.batch * q.promptTokens : q.batch
  const ubatch = q.ubatch ?? DEFAULT_UBATCH
  const ubatches = prefill ? Math.ceil(tokens / ubatch) : 1
  // MoE: the tokens of one micro-batch touch a growing share of the experts (a prompt's tokens
  // differ even when the sequences are identical copies of each other).
  const perUbatch = prefill ? Math.min(q.identicalSequences ? q.promptTokens : tokens, ubatch) : q.batch
  const coverage = !prefill && q.identicalSequences ? 1 : moeWeightCoverage({ ...q, batch: perUbatch })
  const weights = active * coverage
  // Decode of a batch on a mixture-of-experts model: the expert bytes that distinct routing would
  // read beyond the active ones, as their own term. With identical sequences the routing could be
  // shared, but llama.cpp's expert kernels do not always exploit it; the multiplier learns how much
  // of the extra is paid (a share of 0 is shared routing, 1 is distinct).
  const extra = !prefill && q.identicalSequences ? active * (moeWeightCoverage(q) - 1) : 0
  const ctx = attendedContext(q)
  const legacy = isLegacy(q)
  const dqCopy = dequantBlas(q)
  const t = {
    mem: (weights * weightBytesPerParam(q) * ubatches) / bw,
    moe: (extra * weightBytesPerParam(q)) / bw,
    kv: prefill ? 0 : (q.batch * ctx * kvBytesPerToken(q)) / bw,
    compute: (2 * active * tokens) / kernelFlops(q, opts),
    energy: prefill && q.tdpWatts ? (2 * active * tokens * JOULES_PER_FLOP) / q.tdpWatts : 0,
    dequant: PLAIN_FORMATS.has(q.quant) ? 0 : (weights * ubatches) / flops,
    dqcopy: dqCopy ? (weights * ubatches * DQ_COPY_BYTES) / bw : 0,
    attn: (tokens * ctx * attnFlopsPerToken(q)) / flops,
    score: legacy ? (tokens * ctx * attnFlopsPerToken(q) * SCORE_BYTES_PER_FLOP) / bw : 0,
    // Hidden width from the active parameters (≈ 12 × layers × width² for a transformer).
    act: (tokens * layersOf(q) * Math.sqrt(active / (12 * layersOf(q))) * ACT_BYTES) / bw,
    layer: layersOf(q) * ubatches * LAYER_UNIT_S,
    step: ubatches * STEP_UNIT_S,
  }
  return { tokens, phi: PHYSICS_TERMS.map((k) => t[k]) }
}

/**
 * Terms whose multipliers both phases share ("any.mem"): streaming the weights is the same hardware
 * work in decode and prefill. Fitted per phase, prefill's weight-bytes multiplier absorbed its
 * compute inefficiency on dense models (where the two terms are proportional) and then made MoE
 * prefill, whose weight bytes are far larger than its active FLOPs, 5–8× too slow. The per-layer
 * and per-step costs stay per phase: shared (a v3.6.0 development run), the MI50/MI100 micro-batch
 * prompts set every AMD chip's decode overhead through the vendor effect (an RX 7900 XTX's Llama 2 7B
 * decode fell from 105 to 93 tok/s, most of it per-layer cost) while the development folds gained
 * little (decode 22.7% → 21.5%, prefill 38.4% → 38.5% over chips).
 */
export const SHARED_TERMS: ReadonlySet<PhysicsTerm> = new Set<PhysicsTerm>(['mem', 'act', 'score'])
const phaseOf = (phase: string, term: PhysicsTerm) => (SHARED_TERMS.has(term) ? 'any' : phase)
/**
 * The per-layer and per-step costs of a GPU are kernel launches and host synchronisation; a CPU has
 * neither, so its overheads get bases of their own ("decode.layer@cpu"). No training row identifies
 * them (the CPU rows are 7–70B models, where overheads vanish), so they keep the prior: borrowing
 * the GPU's (about 130 µs per layer in legacy builds) made tiny models on a CPU 30–45% too slow.
 */
export const OVERHEAD_TERMS: ReadonlySet<string> = new Set<PhysicsTerm>(['layer', 'step'])
const suffix = (q: Pick<ThroughputQuery, 'device'>, term: PhysicsTerm) => (q.device === 'cpu' && OVERHEAD_TERMS.has(term) ? '@cpu' : '')
/** Parameter name of a term's base multiplier, and of one of its effects, per phase (or "any"). */
export const baseName = (q: Pick<ThroughputQuery, 'phase' | 'device'>, term: PhysicsTerm): string => `${phaseOf(q.phase, term)}.${term}${suffix(q, term)}`
export const effectName = (q: Pick<ThroughputQuery, 'phase' | 'device'>, term: PhysicsTerm, key: string): string => `${baseName(q, term)}|${key}`

/**
 * Prior multipliers (1 ÷ efficiency) the fit shrinks towards where the data says nothing (e.g.
 * the per-layer cost of models far smaller than any measured): 70% of bandwidth for weights, 50%
 * for KV and compute, one FLOP-equivalent per dequantized weight, 10 µs per layer, 100 µs per step.
 */
export const PRIOR: Record<PhysicsTerm, number> = { mem: 1 / 0.7, moe: 1 / 0.7, kv: 2, compute: 2, energy: 1, dequant: 1, dqcopy: 1 / 0.7, attn: 2, score: 1 / 0.7, act: 1, layer: 1, step: 1 }
