/**
 * The statistics of a sweep over an engine's settings, from measured repetitions only: per-combo summaries, the
 * comparison of every combo with the default settings (trimmed means, Welch/Yuen, Cohen's d), a
 * quality gate from @kerneltune/stats, and the winner: the best combo by the target metric that
 * passes the gate and is significantly better than the default.
 */
import { KerneltuneError } from '@kerneltune/core/lite'
import type { Combo, RepetitionMetrics } from '@kerneltune/core'
import { evaluateGate, metricDirection, trimmedMean, type Comparison, type ComboGateResult, type GateMethod, type GateResult } from '@kerneltune/stats'
import { summarizeRepetitions, type RepetitionSummary } from './summary.ts'
import { compareWithBaseline } from './sequential.ts'

/** The metrics a sweep compares and gates on. Memory is reported, not gated: the resident set sampled between phases is too coarse for a 2–5% test. */
export const SWEEP_METRICS = ['decodeTps', 'prefillTps', 'ttftMs'] as const
export type SweepMetric = (typeof SWEEP_METRICS)[number]
/** Every metric a design can rank by: the sweep's, and the tuner's run metrics (a run's backend may report only those). */
export const EXPERIMENT_METRICS = [...SWEEP_METRICS, 'throughputTps', 'latencyMs'] as const
export type ExperimentMetric = (typeof EXPERIMENT_METRICS)[number]

/** The metrics compared and gated: `metrics` when given, else the sweep's, with the ranking metric first when it is not one of them. */
export function comparedMetrics(o: { readonly metric?: ExperimentMetric; readonly metrics?: readonly ExperimentMetric[] }): readonly ExperimentMetric[] {
  const metric = o.metric ?? 'decodeTps'
  const list: readonly ExperimentMetric[] = o.metrics ?? SWEEP_METRICS
  return list.includes(metric) ? list : [metric, ...list]
}

export const SWEEP_GATE_DEFAULTS = { gate: 'regression' as GateMethod, epsilon: 0.05, margin: 0.05, alpha: 0.05 } as const

export interface MeasuredCombo {
  readonly combo: Combo
  readonly hash: string
  readonly reps: readonly RepetitionMetrics[]
  /** Why measurement ended before the maximum repetitions, when it did. */
  readonly stoppedEarly?: string
  /** Set when the engine could not run the combo; such combos have no reps. */
  readonly error?: string
}

export interface AnalyzeOptions {
  readonly metric?: ExperimentMetric
  /** The metrics compared with the defaults and gated on; default SWEEP_METRICS (plus `metric`). */
  readonly metrics?: readonly ExperimentMetric[]
  readonly gate?: GateMethod
  readonly epsilon?: number
  readonly margin?: number
  readonly alpha?: number
  readonly k?: number
}

export interface SweepComboStats extends MeasuredCombo {
  readonly stats: RepetitionSummary
  /** Per metric, against the default settings; absent with fewer than 2 reps on either side. */
  readonly comparison: Partial<Record<ExperimentMetric, Comparison>>
  readonly gate?: ComboGateResult
}

export interface SweepAnalysis {
  readonly metric: ExperimentMetric
  readonly baseline: MeasuredCombo & { readonly stats: RepetitionSummary }
  readonly combos: readonly SweepComboStats[]
  readonly gate: GateResult
  /** Undefined when no combo passes the gate and beats the default significantly. */
  readonly winner?: SweepComboStats
  /** Why the winner won, or why there is none. */
  readonly verdict: string
}

/** A metric's finite values over repetitions (a backend may not report every metric). */
export const metricSamples = (reps: readonly RepetitionMetrics[], m: ExperimentMetric): number[] =>
  reps.map((r) => r[m]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v))
const samples = metricSamples

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`

export function analyzeSweep(baseline: MeasuredCombo, measured: readonly MeasuredCombo[], options: AnalyzeOptions = {}): SweepAnalysis {
  const metric = options.metric ?? 'decodeTps'
  const method = options.gate ?? SWEEP_GATE_DEFAULTS.gate
  const alpha = options.alpha ?? SWEEP_GATE_DEFAULTS.alpha
  if (samples(baseline.reps, metric).length < 2) {
    throw new KerneltuneError('INVALID_INPUT', `the default settings need at least 2 repetitions of ${metric} to compare against; measure more`)
  }
  const compared = comparedMetrics(options)
  const baseMetrics = Object.fromEntries(compared.map((m) => [m, samples(baseline.reps, m)]))
  const ok = measured.filter((c) => !c.error && c.reps.length > 0)
  const gate = evaluateGate(method, {
    candidates: ok.map((c) => ({ comboHash: c.hash, metrics: Object.fromEntries(compared.map((m) => [m, samples(c.reps, m)])) })),
    baseline: baseMetrics,
    metric,
    epsilon: options.epsilon ?? SWEEP_GATE_DEFAULTS.epsilon,
    margin: options.margin ?? SWEEP_GATE_DEFAULTS.margin,
    alpha,
    ...(options.k === undefined ? {} : { k: options.k }),
  })
  const perCombo = new Map(gate.perCombo.map((g) => [g.comboHash, g]))
  const combos: SweepComboStats[] = measured.map((c) => {
    const comparison: Partial<Record<ExperimentMetric, Comparison>> = {}
    for (const m of compared) {
      const cmp = compareWithBaseline(samples(c.reps, m), baseMetrics[m]!, { higherIsBetter: metricDirection(m) === 'higher', alpha })
      if (cmp) comparison[m] = cmp
    }
    const g = perCombo.get(c.hash)
    return { ...c, stats: summarizeRepetitions(c.reps), comparison, ...(g ? { gate: g } : {}) }
  })
  const higher = metricDirection(metric) === 'higher'
  const score = (c: SweepComboStats) => (higher ? 1 : -1) * trimmedMean(samples(c.reps, metric))
  const ranked = combos.filter((c) => samples(c.reps, metric).length > 0).sort((a, b) => score(b) - score(a))
  // The manual gate decides nothing: its winner is only the best measured, flagged for review.
  const passes = (c: SweepComboStats) => (method === 'manual' ? true : c.gate?.passed === true)
  const winner = ranked.find((c) => passes(c) && c.comparison[metric]?.verdict === 'better')
  let verdict: string
  if (winner) {
    const cmp = winner.comparison[metric]!
    verdict = `${metric} ${pct(cmp.improvement)} against the default settings (p=${cmp.welch.pValue.toPrecision(2)}, d=${cmp.cohensD.toFixed(2)}); passes the ${method} gate`
  } else if (ranked.length === 0) {
    verdict = 'no combination could be measured'
  } else {
    const best = ranked[0]!
    const cmp = best.comparison[metric]
    verdict = `no combination is both significantly better than the default settings on ${metric} and passes the ${method} gate` +
      (cmp ? ` (best measured: ${pct(cmp.improvement)}, p=${cmp.welch.pValue.toPrecision(2)}${best.gate && !best.gate.passed ? `; gate: ${best.gate.reasons.join('; ')}` : ''})` : '') +
      '; keep the defaults'
  }
  return {
    metric,
    baseline: { ...baseline, stats: summarizeRepetitions(baseline.reps) },
    combos,
    gate,
    ...(winner ? { winner } : {}),
    verdict,
  }
}
