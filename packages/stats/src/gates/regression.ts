/**
 * regression: no metric of the winner may be worse than the baseline by more than epsilon
 * (relative, trimmed means). Every candidate gets the same check in `perCombo`.
 */
import { trimmedMean } from '../descriptive.ts'
import { comboResult, gateResult, metricDirection, num, pct, rank, type ComboGateResult, type GateCandidate, type GateInput, type GateResult } from './types.ts'

function checkOne(input: GateInput, c: GateCandidate): { ok: boolean; reasons: string[] } {
  const epsilon = input.epsilon ?? 0.02
  const trim = input.trim ?? 0.1
  const reasons: string[] = []
  let ok = true
  let compared = 0
  for (const [metric, base] of Object.entries(input.baseline)) {
    const xs = c.metrics[metric]
    if (!xs?.length || !base.length) continue
    compared++
    const dir = metricDirection(metric, input.directions)
    const bm = trimmedMean(base, trim)
    const cm = trimmedMean(xs, trim)
    // Worsening as a fraction of the baseline: positive means worse, whatever the direction.
    const worse = bm === 0 ? (cm === bm ? 0 : Infinity) : ((dir === 'higher' ? bm - cm : cm - bm) / Math.abs(bm))
    if (worse > epsilon) {
      ok = false
      reasons.push(`${metric} worse by ${pct(worse)} (> ${pct(epsilon)}): ${num(cm)} vs baseline ${num(bm)}`)
    }
  }
  if (compared === 0) return { ok: false, reasons: ['no metric in common with the baseline'] }
  if (ok) reasons.push(`no metric worse than the baseline by more than ${pct(epsilon)} (${compared} compared)`)
  return { ok, reasons }
}

export function regressionGate(input: GateInput): GateResult {
  const perCombo: ComboGateResult[] = []
  const results = new Map<string, boolean>()
  for (const c of input.candidates) {
    const r = checkOne(input, c)
    results.set(c.comboHash, r.ok)
    perCombo.push(comboResult(c.comboHash, r.ok ? 'pass' : 'fail', r.reasons))
  }
  const winner = rank(input).ranked[0]?.candidate.comboHash
  if (winner === undefined) return gateResult('regression', 'fail', [`no candidate has samples for ${input.metric}`], perCombo)
  const ok = results.get(winner)!
  const reasons = [`winner ${winner} (best ${input.metric}) ${ok ? 'has no regression' : 'regresses'} beyond ${pct(input.epsilon ?? 0.02)}`]
  return gateResult('regression', ok ? 'pass' : 'fail', reasons, perCombo, winner)
}
