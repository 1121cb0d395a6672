/**
 * Online adaptation (§B.6): latency history per kernel and context, and the decision whether to
 * keep the table's kernel or switch. Upstream returns the table's config once any matching key
 * has 5 samples and has no `top_k` (the guide promises one); here `topK` is a hysteresis band:
 * the table's kernel is kept while it ranks among the `topK` fastest measured kernels for the
 * context, and replaced by the fastest one only when it falls outside that band.
 */
import { kerneltuneError } from '@kerneltune/core'
import { MIN_ADAPTATION_SAMPLES } from './constants.ts'
import { createKernelConfig, parseKernelName, type KernelConfig } from './kernel-config.ts'
import { bitTuple } from './lookup.ts'

/** `{name}_bs{batch}`, or `{name}_bs{batch}_hd{hidden}_bits(2, 4)` with both hidden and bits. */
export function latencyKey(kernelName: string, batch: number, hidden?: number | null, bits?: readonly number[] | null): string {
  const base = `${kernelName}_bs${batch}`
  return hidden != null && bits != null ? `${base}_hd${hidden}_bits${bitTuple(bits)}` : base
}

/** Appends a sample and trims the history to its last `historyLength` entries. */
export function appendSample(timings: Map<string, number[]>, key: string, ms: number, historyLength: number): void {
  if (!Number.isFinite(ms) || ms < 0) {
    throw kerneltuneError('INVALID_INPUT', `latency must be a finite number ≥ 0 ms, got ${ms}`)
  }
  const list = timings.get(key) ?? []
  list.push(ms)
  if (list.length > historyLength) list.splice(0, list.length - historyLength)
  timings.set(key, list)
}

export interface RankedKernel {
  readonly kernel_name: string
  readonly mean_ms: number
  readonly samples: number
}

/** Kernels recorded for one context with at least `minSamples` samples, fastest first. */
export function rankContext(
  timings: ReadonlyMap<string, readonly number[]>,
  batch: number,
  hidden: number,
  bits: readonly number[],
  minSamples = MIN_ADAPTATION_SAMPLES,
): RankedKernel[] {
  const suffix = `_bs${batch}_hd${hidden}_bits${bitTuple(bits)}`
  const ranked: RankedKernel[] = []
  for (const [key, samples] of timings) {
    if (!key.endsWith(suffix) || samples.length < minSamples) continue
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length
    ranked.push({ kernel_name: key.slice(0, -suffix.length), mean_ms: mean, samples: samples.length })
  }
  return ranked.sort((a, b) => a.mean_ms - b.mean_ms || a.kernel_name.localeCompare(b.kernel_name))
}

export interface Adaptation {
  readonly config: KernelConfig
  /** True when the measured history overrode the table's kernel. */
  readonly switched: boolean
  /** The table's kernel before adaptation. */
  readonly from: string
  /** The `topK` fastest kernels with enough samples. */
  readonly ranking: readonly RankedKernel[]
}

/**
 * Decides with `ranking` (from `rankContext`) and the table's config. Returns null when no kernel
 * has enough samples or there is no table config (upstream's None). A switch keeps the tiles and
 * simdgroups and takes the variant and fp32 accumulation named by the fastest kernel.
 */
export function decideAdaptation(current: KernelConfig | null, ranking: readonly RankedKernel[], topK: number): Adaptation | null {
  if (!Number.isInteger(topK) || topK < 1) throw kerneltuneError('INVALID_INPUT', `topK must be a whole number ≥ 1, got ${topK}`)
  if (!current || ranking.length === 0) return null
  const top = ranking.slice(0, topK)
  const from = current.kernel_name
  const currentRank = ranking.findIndex((r) => r.kernel_name === from)
  // No samples for the current kernel is no evidence against it: keep it.
  if (currentRank === -1 || currentRank < topK) return { config: current, switched: false, from, ranking: top }
  for (const candidate of ranking) {
    const parsed = parseKernelName(candidate.kernel_name)
    if (!parsed) continue
    const { kernel_name: _name, simdgroups: _sg, ...rest } = current
    const config = createKernelConfig({ ...rest, ...parsed })
    return { config, switched: true, from, ranking: top }
  }
  return { config: current, switched: false, from, ranking: top }
}
