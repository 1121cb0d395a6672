/**
 * The summary of a run: the winner by the target metric, the quality gate's verdict for each
 * combination, the Pareto frontier (throughput against p50 latency), how sensitive each dimension
 * was (the evidence Tier 2 narrows on) and what was measured on.
 */
import type { Combo, Run, RunCombo } from '@kerneltune/core'
import { evaluateGate, trimmedMean } from '@kerneltune/stats'
import { dimensionSensitivity, type DimensionSensitivity } from '../tune/narrow.ts'
import type { RunOptions } from './create.ts'
import { gateSamples, higherIsBetter, samplesOf } from './metrics.ts'

export interface ParetoPoint { index: number; comboHash: string; combo: Combo; throughputTps: number | null; latencyP50Ms: number }

export interface RunSummary {
  metric: string
  backend: string
  simulated: boolean
  devices: string[]
  durationMs: number
  counts: { total: number; measured: number; failed: number; cached: number; stoppedEarly: number; pending: number }
  baseline: { index: number; comboHash: string; combo: Combo; value: number } | null
  winner: { index: number; comboHash: string; combo: Combo; value: number; improvement: number | null } | null
  gate: { method: string; status: string; passed: boolean; reasons: string[] } | null
  pareto: ParetoPoint[]
  sensitivity: Record<string, DimensionSensitivity>
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

export function summarizeRun(run: Run, combos: readonly RunCombo[], opts: RunOptions, extra: { devices: string[]; durationMs: number; stoppedEarly: number[] }) {
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
  const summary: RunSummary = {
    metric,
    backend: run.backend,
    simulated: measured.some((c) => c.simulated),
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
    winner: best ? { index: best.index, comboHash: best.comboHash, combo: best.combo, value: value(best), improvement: bv ? (sign * (value(best) - bv)) / Math.abs(bv) : null } : null,
    gate,
    pareto: paretoFrontier(measured),
    sensitivity: dimensionSensitivity(measured, metric, base?.combo),
  }
  return { summary, gates, rejections }
}
