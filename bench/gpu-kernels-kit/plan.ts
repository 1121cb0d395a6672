/**
 * What the kernels kit measures, in the order it measures it: the matrix products of an 8B model
 * (Llama 3 8B: hidden 4096, FFN 14336, K/V projections 1024 wide; decode is a GEMV with one
 * activation row, prefill a GEMM of 512 prompt tokens, llama-bench's pp512) for every weight
 * format, ordered so that a budget that runs out still leaves the figures issue 40 asks for first
 * (Q4_0 decode, then every format's decode, then prefill). Pure: no device, no files.
 */
import { WEIGHT_FORMATS, type KernelKind, type WeightFormat } from '@kerneltune/gpu-kernels'

/** Llama 3 8B's matrix dimensions (config.json: hidden_size, intermediate_size, 8 K/V heads × 128). */
export const LLAMA3_8B = { hidden: 4096, ffn: 14336, kv: 1024, prefillTokens: 512 } as const

export const SHAPE_IDS = ['ffn_up', 'attn_qo', 'ffn_down', 'attn_kv'] as const
export type ShapeId = (typeof SHAPE_IDS)[number]

export interface KitShape {
  id: ShapeId
  /** Which weights of a layer have this shape. */
  role: string
  n: number
  k: number
}

/** The weight matrices of one layer, n outputs × k inputs, at full size. */
export const SHAPES: Record<ShapeId, KitShape> = {
  ffn_up: { id: 'ffn_up', role: 'FFN gate and up', n: LLAMA3_8B.ffn, k: LLAMA3_8B.hidden },
  attn_qo: { id: 'attn_qo', role: 'attention Q and output', n: LLAMA3_8B.hidden, k: LLAMA3_8B.hidden },
  ffn_down: { id: 'ffn_down', role: 'FFN down', n: LLAMA3_8B.hidden, k: LLAMA3_8B.ffn },
  attn_kv: { id: 'attn_kv', role: 'attention K and V', n: LLAMA3_8B.kv, k: LLAMA3_8B.hidden },
}

export interface KitTask {
  kind: KernelKind
  format: WeightFormat
  shape: ShapeId
  m: number
  n: number
  k: number
}

export const MODES = ['full', 'quick'] as const
export type KitMode = (typeof MODES)[number]

export interface KitSettings {
  mode: KitMode
  /** n, k (and the prefill m) are divided by this: 1 on a GPU, 8 on a CPU adapter. */
  scale: number
  warmup: number
  iterations: number
  /** Configurations tried per kernel and shape (the default always among them). */
  maxConfigs: number
  confirmRounds: number
  /** Configurations per kernel and format in the correctness suite (an even sample plus the default). */
  correctnessConfigs: number
  /** Bytes of the copy probe's buffer. */
  copyBytes: number
  /**
   * Cold weights: timed runs rotate over weight copies of at least this many bytes, so a matrix
   * that fits the GPU's L2 (50 MB on an H100, 60 MB on an H200) is not timed from it. A CPU
   * adapter gets a token amount, enough to exercise the rotation.
   */
  coldBytes: number
  fma: { workgroups: number; steps: number }
}

/**
 * A CPU adapter (Mesa's lavapipe, or any fallback adapter) is 100-1000× slower than a GPU: the
 * shapes shrink by 8 in every dimension there so the same lines finish, and the output says so.
 */
export function settingsFor(mode: KitMode, cpuAdapter: boolean): KitSettings {
  const scale = cpuAdapter ? 8 : 1
  if (mode === 'quick') {
    return { mode, scale, warmup: 1, iterations: 3, maxConfigs: 4, confirmRounds: 3, correctnessConfigs: 3, copyBytes: cpuAdapter ? 8 << 20 : 64 << 20, coldBytes: cpuAdapter ? 4 << 20 : 512 << 20, fma: { workgroups: cpuAdapter ? 8 : 1024, steps: cpuAdapter ? 1024 : 4096 } }
  }
  return {
    mode, scale, warmup: 3, iterations: 10, maxConfigs: 16, confirmRounds: 20, correctnessConfigs: cpuAdapter ? 6 : 24,
    copyBytes: cpuAdapter ? 32 << 20 : 256 << 20,
    coldBytes: cpuAdapter ? 4 << 20 : 512 << 20,
    // On a GPU: enough workgroups to fill any current part many times over, ~10 ms of work at 60 TFLOP/s.
    fma: { workgroups: cpuAdapter ? 16 : 8192, steps: cpuAdapter ? 2048 : 16384 },
  }
}

/** The decode (GEMV) and prefill (GEMM) tasks, most wanted first; quick keeps the first shape of each. */
export function planTasks(settings: Pick<KitSettings, 'mode' | 'scale'>): KitTask[] {
  const s = settings.scale
  const task = (kind: KernelKind, shape: ShapeId, format: WeightFormat): KitTask => ({
    kind, format, shape,
    m: kind === 'gemv' ? 1 : LLAMA3_8B.prefillTokens / s,
    n: SHAPES[shape].n / s,
    k: SHAPES[shape].k / s,
  })
  // Q4_0 first: its decode GEMV is what issue 40 item 3 holds to 70% of the copy bandwidth.
  const formats: WeightFormat[] = ['q4_0', ...WEIGHT_FORMATS.filter((f) => f !== 'q4_0')]
  const order: [KernelKind, ShapeId][] = settings.mode === 'quick'
    ? [['gemv', 'ffn_up'], ['gemm', 'attn_qo']]
    : [['gemv', 'ffn_up'], ['gemm', 'attn_qo'], ['gemv', 'attn_qo'], ['gemv', 'ffn_down'], ['gemm', 'ffn_up'], ['gemv', 'attn_kv'], ['gemm', 'ffn_down'], ['gemm', 'attn_kv']]
  return order.flatMap(([kind, shape]) => formats.map((f) => task(kind, shape, f)))
}

/** Small problems with odd sizes (partial workgroups and tiles) for the correctness suite. */
export const CORRECTNESS_PROBLEMS: Record<KernelKind, { m: number; n: number; k: number }> = {
  gemv: { m: 2, n: 70, k: 256 },
  gemm: { m: 13, n: 40, k: 128 },
}

/**
 * Whether a task still fits: the last task of the same kind took `lastSeconds` for `lastWork`
 * multiply-adds; this one is expected to scale with its own, plus a margin. Unknown (first of its
 * kind): it runs if any time is left beyond the reserve.
 */
export function fits(leftSeconds: number, work: number, last?: { seconds: number; work: number }): boolean {
  if (leftSeconds <= 0) return false
  if (!last) return true
  return leftSeconds > 1.25 * last.seconds * Math.max(1, work / last.work)
}

/** An even sample of `all` of at most `max` items, with `first` (the default) in front when given. */
export function evenSample<T>(all: readonly T[], max: number, same: (a: T, b: T) => boolean, first?: T): T[] {
  const budget = Math.max(1, Math.floor(max))
  const picked = all.length > budget ? Array.from({ length: budget }, (_, i) => all[Math.floor((i * all.length) / budget)]!) : [...all]
  if (first === undefined || picked.some((p) => same(p, first))) return picked
  return [first, ...picked.slice(0, budget - 1)]
}
