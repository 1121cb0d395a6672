/**
 * pareto: the winner (best by the target metric) must lie on the throughput–latency frontier of
 * the candidates and the baseline: no point has at least its throughput and at most its latency
 * with one of the two strictly better.
 */
import { trimmedMean } from '../descriptive.ts'
import { comboResult, gateResult, num, rank, type ComboGateResult, type GateInput, type GateResult } from './types.ts'

interface Point {
  readonly id: string
  readonly throughput: number
  readonly latency: number
}

const dominates = (a: Point, b: Point): boolean =>
  a.throughput >= b.throughput && a.latency <= b.latency && (a.throughput > b.throughput || a.latency < b.latency)

export function paretoGate(input: GateInput): GateResult {
  const tp = input.throughputMetric ?? 'throughputTps'
  const lat = input.latencyMetric ?? 'latencyMs'
  const trim = input.trim ?? 0.1
  const pointOf = (id: string, m: GateInput['baseline']): Point | undefined => {
    const a = m[tp]
    const b = m[lat]
    return a?.length && b?.length ? { id, throughput: trimmedMean(a, trim), latency: trimmedMean(b, trim) } : undefined
  }
  const points: Point[] = []
  const perCombo: ComboGateResult[] = []
  for (const c of input.candidates) {
    const p = pointOf(c.comboHash, c.metrics)
    if (p) points.push(p)
  }
  const base = pointOf('baseline', input.baseline)
  const all = base ? [...points, base] : points
  const verdicts = new Map<string, { on: boolean; reason: string }>()
  for (const p of points) {
    const by = all.find((q) => q !== p && dominates(q, p))
    verdicts.set(p.id, by
      ? { on: false, reason: `dominated by ${by.id}: ${tp} ${num(by.throughput)} ≥ ${num(p.throughput)} and ${lat} ${num(by.latency)} ≤ ${num(p.latency)}` }
      : { on: true, reason: `on the frontier (${tp} ${num(p.throughput)}, ${lat} ${num(p.latency)})` })
  }
  for (const c of input.candidates) {
    const v = verdicts.get(c.comboHash)
    perCombo.push(v ? comboResult(c.comboHash, v.on ? 'pass' : 'fail', [v.reason]) : comboResult(c.comboHash, 'fail', [`needs samples for both ${tp} and ${lat}`]))
  }
  const winner = rank(input).ranked.find((r) => verdicts.has(r.candidate.comboHash))?.candidate.comboHash
  if (winner === undefined) return gateResult('pareto', 'fail', [`no candidate has samples for ${input.metric}, ${tp} and ${lat}`], perCombo)
  const v = verdicts.get(winner)!
  const reasons = [`winner ${winner} (best ${input.metric}) is ${v.on ? '' : 'not '}${v.reason}`]
  if (!base) reasons.push(`the baseline lacks ${tp} or ${lat}; the frontier is of the candidates only`)
  return gateResult('pareto', v.on ? 'pass' : 'fail', reasons, perCombo, winner)
}
