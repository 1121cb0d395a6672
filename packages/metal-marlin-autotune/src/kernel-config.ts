/**
 * `KernelConfig`, `BenchmarkResult` and `OptimizedConfig` (reference §B.2). Field names stay
 * snake_case because they are the upstream JSON shape (`to_dict` is `asdict`); building one goes
 * through a factory that resolves the aliases and validates, as `__post_init__` does upstream.
 */
import { kerneltuneError } from '@kerneltune/core'
import {
  BATCH_STRATEGIES,
  BIT_WIDTHS,
  KERNEL_BASE_NAME,
  KERNEL_VARIANTS,
  SIMDGROUP_CONFIGS,
  type BatchStrategy,
  type BitWidth,
  type KernelVariant,
} from './constants.ts'

export interface KernelConfig {
  readonly tile_size_m: number
  readonly tile_size_n: number
  readonly num_simdgroups: number
  readonly kernel_variant: KernelVariant
  readonly batch_strategy: BatchStrategy
  readonly bit_width: BitWidth
  readonly kernel_name: string
  /** Alias of `num_simdgroups` (the guide's name); always equal to it. */
  readonly simdgroups: number
  readonly use_fp32_acc: boolean
}

/** What a caller may pass: every field optional, either simdgroup alias, loose string types. */
export interface KernelConfigInput {
  tile_size_m?: number
  tile_size_n?: number
  num_simdgroups?: number | null
  kernel_variant?: string
  batch_strategy?: string
  bit_width?: number
  kernel_name?: string | null
  simdgroups?: number | null
  use_fp32_acc?: boolean
}

// Python's list repr, so messages read like upstream's `Must be one of ['decode', ...]`.
const pyList = (values: readonly (string | number)[]) =>
  `[${values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join(', ')}]`

function invalid(field: string, value: unknown, allowed: readonly (string | number)[]) {
  return kerneltuneError('INVALID_INPUT', `Invalid ${field}: ${String(value)}. Must be one of ${pyList(allowed)}`, {
    details: { field, value, allowed },
  })
}

/** `moe_trellis_mixed_swiglu[_decode|_prefill|_large_batch][_fp32acc]`. */
export function kernelNameFor(variant: KernelVariant, useFp32Acc: boolean): string {
  const suffix = variant === 'base' ? '' : `_${variant}`
  return `${KERNEL_BASE_NAME}${suffix}${useFp32Acc ? '_fp32acc' : ''}`
}

/** Reads variant and fp32 accumulation back out of a kernel name; null if it is not one of ours. */
export function parseKernelName(name: string): { kernel_variant: KernelVariant; use_fp32_acc: boolean } | null {
  if (!name.startsWith(KERNEL_BASE_NAME)) return null
  let rest = name.slice(KERNEL_BASE_NAME.length)
  const fp32 = rest.endsWith('_fp32acc')
  if (fp32) rest = rest.slice(0, -'_fp32acc'.length)
  const variant = rest === '' ? 'base' : rest.slice(1)
  if (rest !== '' && !rest.startsWith('_')) return null
  if (!(KERNEL_VARIANTS as readonly string[]).includes(variant) || rest === '_base') return null
  return { kernel_variant: variant as KernelVariant, use_fp32_acc: fp32 }
}

/** Builds a validated config; throws INVALID_INPUT with upstream's message on a bad field. */
export function createKernelConfig(input: KernelConfigInput = {}): KernelConfig {
  const variant = input.kernel_variant ?? 'base'
  if (!(KERNEL_VARIANTS as readonly string[]).includes(variant)) throw invalid('kernel_variant', variant, KERNEL_VARIANTS)
  const strategy = input.batch_strategy ?? 'hybrid'
  if (!(BATCH_STRATEGIES as readonly string[]).includes(strategy)) throw invalid('batch_strategy', strategy, BATCH_STRATEGIES)
  const bit = input.bit_width ?? 4
  if (!(BIT_WIDTHS as readonly number[]).includes(bit)) throw invalid('bit_width', bit, BIT_WIDTHS)
  // Upstream: num_simdgroups = simdgroups or 8, then simdgroups mirrors it. Two different values
  // are rejected here rather than silently kept apart.
  const a = input.num_simdgroups ?? undefined
  const b = input.simdgroups ?? undefined
  if (a !== undefined && b !== undefined && a !== b) {
    throw kerneltuneError('INVALID_INPUT', `Invalid simdgroups: num_simdgroups ${a} and simdgroups ${b} disagree; give one of them`)
  }
  const sg = a ?? b ?? 8
  if (!(SIMDGROUP_CONFIGS as readonly number[]).includes(sg)) throw invalid('num_simdgroups', sg, SIMDGROUP_CONFIGS)
  const m = input.tile_size_m ?? 64
  const n = input.tile_size_n ?? 64
  for (const [field, v] of [['tile_size_m', m], ['tile_size_n', n]] as const) {
    if (!Number.isInteger(v) || v <= 0) {
      throw kerneltuneError('INVALID_INPUT', `Invalid ${field}: ${String(v)}. Must be a positive whole number`)
    }
  }
  const fp32 = input.use_fp32_acc ?? false
  return {
    tile_size_m: m,
    tile_size_n: n,
    num_simdgroups: sg,
    kernel_variant: variant as KernelVariant,
    batch_strategy: strategy as BatchStrategy,
    bit_width: bit as BitWidth,
    kernel_name: input.kernel_name ?? kernelNameFor(variant as KernelVariant, fp32),
    simdgroups: sg,
    use_fp32_acc: fp32,
  }
}

/** `{bit}bit_{m}x{n}_{sg}sg_{variant}_{strategy}`. */
export function configId(c: KernelConfig): string {
  return `${c.bit_width}bit_${c.tile_size_m}x${c.tile_size_n}_${c.num_simdgroups}sg_${c.kernel_variant}_${c.batch_strategy}`
}

const ID_RE = new RegExp(
  `^(\\d+)bit_(\\d+)x(\\d+)_(\\d+)sg_(${KERNEL_VARIANTS.join('|')})_(${BATCH_STRATEGIES.join('|')})$`,
)

/**
 * Parses a config id. Upstream splits on `_`, which breaks on large_batch, per_expert and
 * per_bitwidth; anchoring on the known variant and strategy names does not.
 */
export function parseConfigId(id: string): KernelConfig | null {
  const m = ID_RE.exec(id)
  if (!m) return null
  try {
    return createKernelConfig({
      bit_width: Number(m[1]),
      tile_size_m: Number(m[2]),
      tile_size_n: Number(m[3]),
      num_simdgroups: Number(m[4]),
      kernel_variant: m[5],
      batch_strategy: m[6],
    })
  } catch {
    return null
  }
}

/** A plain copy in the upstream `asdict` shape. */
export function kernelConfigToDict(c: KernelConfig): Record<string, unknown> {
  return { ...c }
}

/** Details of the real kernel behind a result (absent for injected fakes). */
export interface KernelRunDetails {
  readonly kind: string
  readonly format: string
  readonly params: Readonly<Record<string, number | boolean>>
  readonly max_abs_error?: number
  readonly gflops?: number
  readonly samples?: number
}

export interface BenchmarkResult {
  readonly config: KernelConfig
  readonly batch_size: number
  readonly hidden_dim: number
  readonly latency_ms: number
  readonly throughput: number
  readonly memory_bytes: number
  readonly success: boolean
  readonly error_msg: string
  readonly throughput_gbps: number
  readonly memory_footprint_mb: number
  readonly kernel?: KernelRunDetails
}

export type BenchmarkResultInput = { config: KernelConfig } & Partial<Omit<BenchmarkResult, 'config'>>

const MB = 1024 * 1024

/** Fills the alias pairs both ways, as upstream's post-init: throughput ⇄ gbps, bytes ⇄ MB. */
export function createBenchmarkResult(input: BenchmarkResultInput): BenchmarkResult {
  let throughput = input.throughput ?? 0
  let gbps = input.throughput_gbps ?? 0
  if (throughput === 0 && gbps !== 0) throughput = gbps
  else if (gbps === 0 && throughput !== 0) gbps = throughput
  let bytes = input.memory_bytes ?? 0
  let mb = input.memory_footprint_mb ?? 0
  if (bytes === 0 && mb !== 0) bytes = Math.round(mb * MB)
  else if (mb === 0 && bytes !== 0) mb = bytes / MB
  return {
    config: input.config,
    batch_size: input.batch_size ?? 0,
    hidden_dim: input.hidden_dim ?? 0,
    latency_ms: input.latency_ms ?? 0,
    throughput,
    memory_bytes: bytes,
    success: input.success ?? true,
    error_msg: input.error_msg ?? '',
    throughput_gbps: gbps,
    memory_footprint_mb: mb,
    ...(input.kernel ? { kernel: input.kernel } : {}),
  }
}

/** The upstream `to_dict`: the config is nested as a dict; infinite latency becomes null in JSON. */
export function benchmarkResultToDict(r: BenchmarkResult): Record<string, unknown> {
  return { ...r, config: kernelConfigToDict(r.config), latency_ms: Number.isFinite(r.latency_ms) ? r.latency_ms : null }
}

/** `OptimizedConfig` (§B.2): the best measured config for one (batch, bit, hidden). */
export interface OptimizedConfig {
  readonly bit_width: number
  readonly batch_size: number
  readonly hidden_dim: number
  readonly kernel_variant: KernelVariant
  readonly tile_size_m: number
  readonly tile_size_n: number
  readonly num_simdgroups: number
  readonly batch_strategy: BatchStrategy
  readonly expected_latency_ms: number
  readonly throughput: number
}

/** `lookup_key` as the export writes it: `"<batch>_<bit>_<hidden>"`. */
export function optimizedKey(batch: number, bit: number, hidden: number): string {
  return `${batch}_${bit}_${hidden}`
}

export function optimizedFromResult(r: BenchmarkResult): OptimizedConfig {
  return {
    bit_width: r.config.bit_width,
    batch_size: r.batch_size,
    hidden_dim: r.hidden_dim,
    kernel_variant: r.config.kernel_variant,
    tile_size_m: r.config.tile_size_m,
    tile_size_n: r.config.tile_size_n,
    num_simdgroups: r.config.num_simdgroups,
    batch_strategy: r.config.batch_strategy,
    expected_latency_ms: r.latency_ms,
    throughput: r.throughput,
  }
}

/** The config id of an optimized config (same format as `configId`). */
export function optimizedConfigId(o: OptimizedConfig): string {
  return `${o.bit_width}bit_${o.tile_size_m}x${o.tile_size_n}_${o.num_simdgroups}sg_${o.kernel_variant}_${o.batch_strategy}`
}
