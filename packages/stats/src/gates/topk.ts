/**
 * topk5: the best k combos by the target metric must each beat the baseline by at least the
 * margin (relative, in the better direction) and significantly (Welch/Yuen p < alpha).
 */
import { compareToBaseline } from '../compare.ts'
import { comboResult, gateResult, metricDirection, num, pct, rank, type ComboGateResult, type GateInput, type GateResult } from './types.ts'

function checkOne(input: GateInput, samples: readonly number[]): { ok: boolean; reason: string } {
  const metric = input.metric
  const base = input.baseline[metric]
  const margin = input.margin ?? 0.05
  if (!base || base.length < 2 || samples.length < 2) {
    return { ok: false, reason: `${metric}: the significance test needs at least 2 repetitions of both the combo and the baseline` }
  }
  const cmp = compareToBaseline(samples, base, {
    higherIsBetter: metricDirection(metric, input.directions) === 'higher',
    alpha: input.alpha ?? 0.05,
    trim: input.trim ?? 0.1,
  })
  const detail = `${metric} ${num(cmp.trimmedMean)} vs baseline ${num(cmp.baselineTrimmedMean)}: improvement ${pct(cmp.improvement)}, p=${cmp.welch.pValue.toPrecision(3)}, d=${num(cmp.cohensD)}`
  if (!(cmp.improvement >= margin)) return { ok: false, reason: `${detail}; below the ${pct(margin)} margin` }
  if (cmp.verdict !== 'better') return { ok: false, reason: `${detail}; not significant at alpha=${input.alpha ?? 0.05}` }
  return { ok: true, reason: `${detail}; beats the ${pct(margin)} margin` }
}

export function topkGate(input: GateInput): GateResult {
  const k = input.k ?? 5
  const { ranked, missing } = rank(input)
  const perCombo: ComboGateResult[] = []
  const top = ranked.slice(0, k)
  let failures = 0
  ranked.forEach((r, i) => {
    const check = checkOne(input, r.candidate.metrics[input.metric]!)
    const inTop = i < k
    if (inTop && !check.ok) failures++
    const where = inTop ? `rank ${i + 1} of top ${k}` : `rank ${i + 1} (outside the top ${k}; does not decide the gate)`
    perCombo.push(comboResult(r.candidate.comboHash, check.ok ? 'pass' : 'fail', [`${where}: ${check.reason}`]))
  })
  for (const c of missing) perCombo.push(comboResult(c.comboHash, 'fail', [`no samples for ${input.metric}`]))
  const reasons: string[] = []
  if (top.length === 0) reasons.push(`no candidate has samples for ${input.metric}`)
  else {
    if (top.length < k) reasons.push(`only ${top.length} candidate(s) measured; all of them must pass`)
    reasons.push(failures === 0 ? `all top ${top.length} combos beat the baseline by at least ${pct(input.margin ?? 0.05)}` : `${failures} of the top ${top.length} combos do not beat the baseline by ${pct(input.margin ?? 0.05)}`)
  }
  const passed = top.length > 0 && failures === 0
  return gateResult('topk5', passed ? 'pass' : 'fail', reasons, perCombo, top[0]?.candidate.comboHash)
}
