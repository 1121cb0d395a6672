/** The quality gates: one entry point, `evaluateGate(method, input)`. */
import { kerneltuneError } from '@kerneltune/core/errors'
import { trimmedMean } from '../descriptive.ts'
import { paretoGate } from './pareto.ts'
import { regressionGate } from './regression.ts'
import { topkGate } from './topk.ts'
import { GATE_METHODS, comboResult, gateResult, num, pct, rank, type GateInput, type GateMethod, type GateResult } from './types.ts'

// manual: decide nothing; show each combo's metrics against the baseline for a person to judge.
function manualGate(input: GateInput): GateResult {
  const trim = input.trim ?? 0.1
  const perCombo = input.candidates.map((c) => {
    const reasons = Object.entries(c.metrics).filter(([, xs]) => xs.length > 0).map(([metric, xs]) => {
      const cm = trimmedMean(xs, trim)
      const base = input.baseline[metric]
      if (!base?.length) return `${metric} ${num(cm)} (no baseline)`
      const bm = trimmedMean(base, trim)
      return `${metric} ${num(cm)} vs baseline ${num(bm)} (${bm === 0 ? 'n/a' : `${cm >= bm ? '+' : ''}${pct((cm - bm) / Math.abs(bm))}`})`
    })
    return comboResult(c.comboHash, 'review', reasons.length ? reasons : ['no metrics'])
  })
  const winner = input.candidates.some((c) => c.metrics[input.metric]?.length) ? rank(input).ranked[0]?.candidate.comboHash : undefined
  return gateResult('manual', 'review', [`manual gate: ${input.candidates.length} combo(s) surfaced for human review; nothing was gated automatically`], perCombo, winner)
}

const GATES: Record<GateMethod, (input: GateInput) => GateResult> = {
  topk5: topkGate,
  pareto: paretoGate,
  regression: regressionGate,
  manual: manualGate,
}

/** Runs one quality gate. Unknown methods are INVALID_INPUT naming the accepted ones. */
export function evaluateGate(method: GateMethod, input: GateInput): GateResult {
  const gate = GATES[method]
  if (!gate) throw kerneltuneError('INVALID_INPUT', `unknown quality gate "${method}"; accepted: ${GATE_METHODS.join(', ')}`)
  for (const [name, v] of [['margin', input.margin], ['epsilon', input.epsilon]] as const) {
    if (v !== undefined && !(v >= 0)) throw kerneltuneError('INVALID_INPUT', `${name} must be a fraction >= 0, got ${v}`)
  }
  if (input.k !== undefined && !(Number.isInteger(input.k) && input.k >= 1)) throw kerneltuneError('INVALID_INPUT', `k must be a whole number >= 1, got ${input.k}`)
  return gate(input)
}
