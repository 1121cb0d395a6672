/**
 * The summary of a run: the winner by the target metric, the quality gate's verdict for each
 * combination, the Pareto frontier (throughput against p50 latency), how sensitive each dimension
 * was (the evidence Tier 2 narrows on) and what was measured on. When the backend stands in for
 * the target engine or device, the summary says so (`proxy`: of what, on what), names the
 * dimensions the backend does not exercise (`notMeasured`) and keeps them out of the winner.
 */
import type { Combo, MeasurementProxy, Run, RunCombo } from '@kerneltune/core'
import { confidenceInterval, evaluateGate, mean, standardDeviation, trimmedMean } from '@kerneltune/stats'
import { dimensionSensitivity, type DimensionSensitivity } from '../tune/narrow.ts'
import type { RunOptions } from './create.ts'
import { gateSamples, higherIsBetter, samplesOf } from './metrics.ts'
import { runObjectives, storedObjectives, type RunObjectives } from './objectives.ts'
import { runVerdict, type RunVerdict } from './verdict.ts'

export interface ParetoPoint { index: number; comboHash: string; combo: Combo; throughputTps: number | null; latencyP50Ms: number }

/** A proxy measurement, in words: what it stands in for (`of`) and what actually ran (`on`). */
export interface ProxyLabel { of: string; on: string; engine: boolean; device: boolean }

/**
 * How repeatable one metric of the baseline was over its repetitions: the 95% t-interval of its
 * mean (`halfWidth`, and relative to the mean) and its coefficient of variation. A difference
 * between combinations smaller than this is not one the run can tell from noise.
 */
export interface NoiseEstimate { n: number; mean: number; halfWidth: number; relHalfWidth: number; cv: number; level: number }

export interface RunSummary {
  metric: string
  backend: string
  simulated: boolean
  /** Non-null when the numbers were measured by something standing in for the target engine or device. */
  proxy: ProxyLabel | null
  /** Dimensions of the combinations that the backend does not exercise: their values were not measured. */
  notMeasured: string[]
  /** Whose cached results could answer this run: its tenant's only, or every tenant's (operator opt-in). */
  cacheScope: 'tenant' | 'shared'
  devices: string[]
  durationMs: number
  counts: { total: number; measured: number; failed: number; cached: number; stoppedEarly: number; pending: number }
  baseline: { index: number; comboHash: string; combo: Combo; value: number } | null
  /** The best combination, by its measured dimensions only; `proxy` repeats how it was measured. */
  winner: { index: number; comboHash: string; combo: Combo; value: number; improvement: number | null; proxy: ProxyLabel | null; notMeasured: string[]; notToldApart: Record<string, string[]> } | null
  gate: { method: string; status: string; passed: boolean; reasons: string[] } | null
  /**
   * The baseline's repeatability per metric (throughput when every repetition has one, latency
   * always); null without a baseline of at least 2 repetitions. The dashboard draws it as the
   * noise band of its plot. A simulated run's is 0: its repetitions are one prediction repeated.
   */
  noise: { throughputTps?: NoiseEstimate; latencyMs: NoiseEstimate } | null
  pareto: ParetoPoint[]
  sensitivity: Record<string, DimensionSensitivity>
  /**
   * Runs that opted into Tier 3 registry kernels: each kernel the backend selected or excluded,
   * with the combinations that used it and the reason (e.g. "proposed: not approved yet").
   */
  registryKernels?: { id: string; name: string; kernelFamily: string; selection: 'selected' | 'excluded'; usedBy: number[]; why: string }[]
  /** Dimensions the backend cannot exercise, held at this value in every combination (not searched). */
  heldAtDefault?: Record<string, string>
  /**
   * Runs with latency objectives (slo/objective): each combination's feasibility, violations and
   * goodput, the Pareto front and the decision. The winner is then the objectives' (an infeasible
   * combination never wins; null when nothing meets them) and its value the objective's.
   */
  objectives?: RunObjectives
  /**
   * The run's one verdict (verdict.ts): what to run and why, with every figure's unit, from the
   * objectives, the design or the gate. What the dashboard and `kerneltune run show` print as the
   * run's result; absent in summaries stored before it existed (the server derives it on read).
   */
  verdict?: RunVerdict
}

/** Per registry kernel over the combinations: selected wins over excluded, usedBy lists the combinations. */
export function registryKernelSummary(combos: readonly RunCombo[]): NonNullable<RunSummary['registryKernels']> | undefined {
  if (!combos.some((c) => c.kernels)) return undefined
  const out = new Map<string, NonNullable<RunSummary['registryKernels']>[number]>()
  for (const c of combos) {
    for (const k of c.kernels ?? []) {
      const seen = out.get(k.id)
      const entry = !seen || (seen.selection === 'excluded' && k.selection === 'selected') ? { id: k.id, name: k.name, kernelFamily: k.kernelFamily, selection: k.selection, usedBy: seen?.usedBy ?? [], why: k.why } : seen
      if (k.used) entry.usedBy.push(c.index)
      out.set(k.id, entry)
    }
  }
  return [...out.values()]
}

/** The 95% interval of the mean and the CV of one metric's repetitions; needs at least 2. */
export function noiseOf(values: readonly number[]): NoiseEstimate {
  const ci = confidenceInterval(values)
  const m = mean(values)
  // A zero mean has no relative spread; 0 rather than NaN, which JSON would turn into null.
  const rel = (x: number) => (m === 0 ? 0 : x / Math.abs(m))
  return { n: values.length, mean: m, halfWidth: ci.halfWidth, relHalfWidth: rel(ci.halfWidth), cv: rel(standardDeviation(values)), level: ci.level }
}

function baselineNoise(base: RunCombo | undefined): RunSummary['noise'] {
  if (!base || base.repetitions.length < 2) return null
  const tps = base.repetitions.map((r) => r.throughputTps)
  return {
    latencyMs: noiseOf(base.repetitions.map((r) => r.latencyMs)),
    ...(tps.every((x) => x !== undefined) ? { throughputTps: noiseOf(tps as number[]) } : {}),
  }
}

/** Non-dominated combos: none other has throughput ≥ and latency ≤ with one strictly better. */
export function paretoFrontier(combos: readonly RunCombo[]): ParetoPoint[] {
  const pts = combos.filter((c) => c.status === 'measured' && c.metrics).map((c) => ({
    index: c.index, comboHash: c.comboHash, combo: c.combo, throughputTps: c.metrics!.throughputTps ?? null, latencyP50Ms: c.metrics!.latencyP50Ms,
  }))
  const tps = (p: ParetoPoint) => p.throughputTps ?? -p.latencyP50Ms
  return pts.filter((p) => !pts.some((q) => q !== p && tps(q) >= tps(p) && q.latencyP50Ms <= p.latencyP50Ms && (tps(q) > tps(p) || q.latencyP50Ms < p.latencyP50Ms)))
    .sort((a, b) => a.latencyP50Ms - b.latencyP50Ms)
}

export interface SummaryExtra {
  devices: string[]
  durationMs: number
  stoppedEarly: number[]
  /** What the backend declared: a proxy of the engine/device, and the dimensions it exercises. */
  proxy?: MeasurementProxy | undefined
  exercises?: readonly string[] | undefined
  equivalentValues?: Readonly<Record<string, readonly (readonly string[])[]>> | undefined
  cacheScope?: 'tenant' | 'shared'
}

/** For each dimension of a combination, the other values the backend runs identically (only where there are some). */
export function notToldApart(combo: Combo, equivalent: SummaryExtra['equivalentValues']): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const [d, v] of Object.entries(combo)) {
    const same = equivalent?.[d]?.find((group) => group.includes(v))?.filter((x) => x !== v)
    if (same?.length) out[d] = [...same]
  }
  return out
}

/** The proxy label of a run whose backend stands in for its engine or device; null otherwise. */
export function proxyLabel(run: Run, proxy: MeasurementProxy | undefined, devices: readonly string[]): ProxyLabel | null {
  if (!proxy || (!proxy.engine && !proxy.device)) return null
  const engine = `engine ${run.target.engine} ${run.target.engineVersion}`
  const hardware = run.target.hardware.name
  const of = proxy.engine && proxy.device ? `${engine} on ${hardware}` : proxy.engine ? engine : hardware
  const on = `${proxy.runs ?? `the ${run.backend} backend`} on ${devices.length ? devices.join('; ') : 'this machine'}`
  return { of, on, engine: proxy.engine, device: proxy.device }
}

/** The dimensions of these combinations that a backend exercising only `exercises` leaves unmeasured. */
export function unmeasuredDimensions(combos: readonly { combo: Combo }[], exercises: readonly string[] | undefined): string[] {
  if (!exercises) return []
  const dims = new Set(combos.flatMap((c) => Object.keys(c.combo)))
  return [...dims].filter((d) => !exercises.includes(d)).sort()
}

export function summarizeRun(run: Run, combos: readonly RunCombo[], opts: RunOptions, extra: SummaryExtra): {
  summary: RunSummary
  gates: Map<number, { passed: boolean; reasons: string[] }>
  rejections: string[]
} {
  const measured = combos.filter((c) => c.status === 'measured' && c.repetitions.length > 0)
  const base = measured.find((c) => c.isBaseline)
  const metric = measured[0] ? samplesOf(measured[0].repetitions, opts.metric).metric : opts.metric
  const value = (c: RunCombo) => trimmedMean(samplesOf(c.repetitions, metric).values)
  const sign = higherIsBetter(metric) ? 1 : -1
  const best = [...measured].sort((a, b) => sign * (value(b) - value(a)))[0]
  const gates = new Map<number, { passed: boolean; reasons: string[] }>()
  const rejections: string[] = []
  let gate: RunSummary['gate'] = null
  const candidates = measured.filter((c) => !c.isBaseline)
  if (base && candidates.length) {
    const g = evaluateGate(run.qualityGate, {
      candidates: candidates.map((c) => ({ comboHash: c.comboHash, metrics: gateSamples(c.repetitions) })),
      baseline: gateSamples(base.repetitions),
      metric,
      ...(opts.margin !== undefined ? { margin: opts.margin } : {}),
      ...(opts.epsilon !== undefined ? { epsilon: opts.epsilon } : {}),
    })
    gate = { method: g.method, status: g.status, passed: g.passed, reasons: [...g.reasons] }
    for (const p of g.perCombo) {
      for (const c of candidates.filter((x) => x.comboHash === p.comboHash)) gates.set(c.index, { passed: p.passed, reasons: [...p.reasons] })
      if (p.status === 'fail') rejections.push(run.qualityGate)
    }
  }
  const bv = base ? value(base) : undefined
  const proxy = proxyLabel(run, extra.proxy, extra.devices)
  const notMeasured = unmeasuredDimensions(combos, extra.exercises)
  const measuredOnly = (combo: Combo): Combo => Object.fromEntries(Object.entries(combo).filter(([d]) => !notMeasured.includes(d)))
  const summary: RunSummary = {
    metric,
    backend: run.backend,
    simulated: measured.some((c) => c.simulated),
    proxy,
    notMeasured,
    cacheScope: extra.cacheScope ?? 'tenant',
    devices: extra.devices,
    durationMs: extra.durationMs,
    counts: {
      total: combos.length,
      measured: measured.length,
      failed: combos.filter((c) => c.status === 'failed').length,
      cached: combos.filter((c) => c.cached).length,
      stoppedEarly: extra.stoppedEarly.length,
      pending: combos.filter((c) => c.status === 'pending').length,
    },
    baseline: base ? { index: base.index, comboHash: base.comboHash, combo: base.combo, value: bv! } : null,
    winner: best
      ? { index: best.index, comboHash: best.comboHash, combo: measuredOnly(best.combo), value: value(best), improvement: bv ? (sign * (value(best) - bv)) / Math.abs(bv) : null, proxy, notMeasured, notToldApart: notToldApart(measuredOnly(best.combo), extra.equivalentValues) }
      : null,
    gate,
    noise: baselineNoise(base),
    pareto: paretoFrontier(measured),
    sensitivity: dimensionSensitivity(measured, metric, base?.combo),
  }
  const registryKernels = registryKernelSummary(combos)
  if (registryKernels) summary.registryKernels = registryKernels
  if (opts.heldAtDefault && Object.keys(opts.heldAtDefault).length) summary.heldAtDefault = opts.heldAtDefault
  const objectives = storedObjectives(opts)
  if (objectives) {
    const o = runObjectives(combos, objectives, run.backend, opts.design === 'interleaved')
    summary.objectives = o
    if (!o.note) summary.winner = objectivesWinner(o, objectives.objective.direction === 'max' ? 1 : -1, combos, summary, measuredOnly, extra)
  }
  summary.verdict = runVerdict(summary, { winnerGate: summary.winner ? gates.get(summary.winner.index) : null })
  return { summary, gates, rejections }
}

/** The winner by the objectives: their decision, the defaults when they hold and nothing beats them, null when nothing meets them. */
function objectivesWinner(o: RunObjectives, sign: 1 | -1, combos: readonly RunCombo[], summary: RunSummary, measuredOnly: (c: Combo) => Combo, extra: SummaryExtra): RunSummary['winner'] {
  const base = summary.baseline && o.candidates.find((c) => c.index === summary.baseline!.index)
  const pick = o.decision.winner ?? (o.decision.defaultsFeasible ? base?.index ?? null : null)
  const w = o.candidates.find((c) => c.index === pick)
  const hash = combos.find((c) => c.index === pick)?.comboHash
  if (!w || w.objectiveValue === null || hash === undefined) return null
  const bv = base?.objectiveValue ?? null
  const combo = measuredOnly(w.combo)
  return { index: w.index, comboHash: hash, combo, value: w.objectiveValue, improvement: bv ? (sign * (w.objectiveValue - bv)) / Math.abs(bv) : null, proxy: summary.proxy, notMeasured: summary.notMeasured, notToldApart: notToldApart(combo, extra.equivalentValues) }
}
