/** Shared shapes and helpers of the quality gates. */
import { kerneltuneError } from '@kerneltune/core/errors'
import { trimmedMean } from '../descriptive.ts'

export const GATE_METHODS = ['topk5', 'pareto', 'regression', 'manual'] as const
export type GateMethod = (typeof GATE_METHODS)[number]
export const DEFAULT_GATE: GateMethod = 'topk5'

export type Direction = 'higher' | 'lower'
/** Metric name → samples (one value per repetition). */
export type MetricSamples = Readonly<Record<string, readonly number[]>>

export interface GateCandidate {
  readonly comboHash: string
  readonly metrics: MetricSamples
}

export interface GateInput {
  readonly candidates: readonly GateCandidate[]
  readonly baseline: MetricSamples
  /** The target metric that ranks candidates, e.g. 'throughputTps' or 'latencyMs'. */
  readonly metric: string
  /** Direction per metric; names with latency/ttft/tpot/ms/memory/bytes default to lower, throughput/tps to higher. */
  readonly directions?: Readonly<Record<string, Direction>>
  /** topk5: relative improvement every top-k combo needs; default 0.05 (5%). */
  readonly margin?: number
  /** regression: largest relative worsening allowed on any metric; default 0.02 (2%). */
  readonly epsilon?: number
  /** topk5: how many top combos must pass; default 5. */
  readonly k?: number
  /** Significance level; default 0.05. */
  readonly alpha?: number
  /** Trim proportion; default 0.1. */
  readonly trim?: number
  /** pareto: the two frontier axes; defaults 'throughputTps' and 'latencyMs'. */
  readonly throughputMetric?: string
  readonly latencyMetric?: string
}

/** 'review' is the manual gate's answer: nothing was decided automatically. */
export type GateStatus = 'pass' | 'fail' | 'review'

export interface ComboGateResult {
  readonly comboHash: string
  readonly status: GateStatus
  readonly passed: boolean
  readonly reasons: readonly string[]
}

export interface GateResult {
  readonly method: GateMethod
  readonly status: GateStatus
  readonly passed: boolean
  readonly reasons: readonly string[]
  /** The best candidate by the target metric, when any candidate has samples for it. */
  readonly winner?: string
  readonly perCombo: readonly ComboGateResult[]
}

/** The direction of a metric: explicit, else inferred from its name, else INVALID_INPUT. */
export function metricDirection(name: string, directions?: Readonly<Record<string, Direction>>): Direction {
  const explicit = directions?.[name]
  if (explicit) return explicit
  if (/latency|ttft|tpot|itl|memory|bytes|time|ms$/i.test(name)) return 'lower'
  if (/throughput|tps$|tokens?_?per|tok_?s|qps|bandwidth/i.test(name)) return 'higher'
  throw kerneltuneError('INVALID_INPUT', `cannot tell whether more or less ${name} is better; pass directions: { ${name}: 'higher' | 'lower' }`)
}

export function comboResult(comboHash: string, status: GateStatus, reasons: readonly string[]): ComboGateResult {
  return { comboHash, status, passed: status === 'pass', reasons }
}

export function gateResult(method: GateMethod, status: GateStatus, reasons: readonly string[], perCombo: readonly ComboGateResult[], winner?: string): GateResult {
  return { method, status, passed: status === 'pass', reasons, ...(winner === undefined ? {} : { winner }), perCombo }
}

export interface Ranked {
  readonly candidate: GateCandidate
  readonly value: number
}

/** Candidates with samples for `metric`, best first by trimmed mean. */
export function rank(input: GateInput, metric = input.metric): { ranked: Ranked[]; missing: GateCandidate[] } {
  const dir = metricDirection(metric, input.directions)
  const trim = input.trim ?? 0.1
  const ranked: Ranked[] = []
  const missing: GateCandidate[] = []
  for (const c of input.candidates) {
    const xs = c.metrics[metric]
    if (!xs || xs.length === 0) missing.push(c)
    else ranked.push({ candidate: c, value: trimmedMean(xs, trim) })
  }
  ranked.sort((a, b) => (dir === 'higher' ? b.value - a.value : a.value - b.value))
  return { ranked, missing }
}

export const pct = (x: number): string => `${(x * 100).toFixed(2)}%`
export const num = (x: number): string => (Math.abs(x) >= 100 ? x.toFixed(1) : Math.abs(x) >= 1 ? x.toFixed(3) : x.toPrecision(4))
