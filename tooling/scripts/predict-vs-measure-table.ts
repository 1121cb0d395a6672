/** The markdown tables of predict-vs-measure.ts: every point, then the error summary. */
import { PHASES, type Phase, type ReportPoint } from './predict-vs-measure-point.ts'

export interface PhaseErrors {
  heldOutBefore: number
  heldOutAfter: number
  /** MAPE of the uncalibrated model over every point. */
  allBefore?: number
  calibrationBefore: number
  calibrationLeaveOneOutAfter: number
  factor: number
  /** Physics model: the multiplier of the per-layer and per-step overhead times. */
  overheadFactor?: number | undefined
  /** Physics model: the work factor per weight format, where calibration fitted one. */
  formatFactors?: Record<string, number> | undefined
  /** Points whose measurement fell inside the uncalibrated prediction's 90% interval. */
  insideInterval?: number
  cappedBefore: number
  cappedAfter: number
}

const f = (x: number, d = 1) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
const digits = (phase: Phase) => (phase === 'decode' ? 1 : 0)
const err = (pred: number, meas: number) => `${pred >= meas ? '+' : ''}${f(((pred - meas) / meas) * 100, 0)}%`
const pct = (x: number) => `${f(x * 100)}%`

function cells(p: ReportPoint, phase: Phase): string[] {
  const d = digits(phase)
  const m = p.measured[phase]
  const pr = p.predicted[phase]
  const ca = p.calibrated![phase]
  const ci = p.ci[phase]
  return [
    `${f(pr.rooflineTps, d)}`,
    `${f(pr.predictedTps, d)}${pr.capped ? ' ᶜ' : ''}${pr.interval ? ` [${f(pr.interval.low, d)}, ${f(pr.interval.high, d)}]` : ''} (${err(pr.predictedTps, m)})`,
    `${f(ca.predictedTps, d)}${ca.capped ? ' ᶜ' : ''} (${err(ca.predictedTps, m)})`,
    `**${f(m, d)}**${ci ? ` [${f(ci[0], d)}, ${f(ci[1], d)}]` : ''}`,
  ]
}

/**
 * How wide the uncalibrated intervals were, beside how many held the measurement (issue 34: a
 * coverage count says little without the width): the ends as multiples of the prediction and the
 * median width (high − low) ÷ prediction.
 */
export function intervalWidthText(points: readonly ReportPoint[], phase: Phase): string {
  const iv = points.map((p) => p.predicted[phase]).filter((pr) => pr.interval && pr.predictedTps > 0)
  if (!iv.length) return ''
  const rel = iv.map((pr) => ({ low: pr.interval!.low / pr.predictedTps, high: pr.interval!.high / pr.predictedTps }))
  const range = (xs: number[]) => { const a = f(Math.min(...xs), 2); const b = f(Math.max(...xs), 2); return a === b ? a : `${a}–${b}` }
  const widths = rel.map((r) => r.high - r.low).sort((a, b) => a - b)
  const median = (widths[(widths.length - 1) >> 1]! + widths[widths.length >> 1]!) / 2
  return ` (intervals ${range(rel.map((r) => r.low))}× to ${range(rel.map((r) => r.high))}× the prediction, median width ${f(median * 100, 0)}%)`
}

export function renderTable(points: readonly ReportPoint[], errors: Record<Phase, PhaseErrors>): string {
  const held = points.filter((p) => !p.calibration)
  const head = PHASES.flatMap((ph) => [`${ph} roofline bound (cap)`, `${ph} predicted (error)`, `${ph} calibrated (error)`, `${ph} measured [95% CI]`])
  const rows = points.map((p) => `| ${p.size} ${p.quant} | ${f(p.params / 1e6, 1)}M | ${f(p.bytes / 1e6, 1)} | ${p.calibration ? 'calibration' : '**held out**'} | ${PHASES.flatMap((ph) => cells(p, ph)).join(' | ')} |`)
  const summary = PHASES.map((ph) => {
    const e = errors[ph]
    return `| ${ph} tok/s | **${pct(e.heldOutBefore)}** | **${pct(e.heldOutAfter)}** | ${e.allBefore === undefined ? '–' : pct(e.allBefore)} | ${pct(e.calibrationBefore)} | ${pct(e.calibrationLeaveOneOutAfter)} | ${e.formatFactors ? Object.entries(e.formatFactors).map(([q, v]) => `${q} ×${f(v, 3)}`).join(', ') : `×${f(e.factor, 3)}`}${e.overheadFactor === undefined ? '' : `, overheads ×${f(e.overheadFactor, 3)}`} | ${e.insideInterval === undefined ? '–' : `${e.insideInterval} of ${points.length}${intervalWidthText(points, ph)}`} | ${e.cappedBefore} / ${e.cappedAfter} of ${points.length} |`
  })
  return [
    `| model | params | MB | role | ${head.join(' | ')} |`.replace(/predicted \(error\)/g, 'predicted [90% interval] (error)'),
    `|${'---|'.repeat(4 + head.length)}`,
    ...rows,
    '',
    'ᶜ = the regressor\'s output exceeded the roofline bound and was capped to it.',
    '',
    `Mean absolute percentage error. **Held out**: the ${held.length} models of sizes ${[...new Set(held.map((p) => p.size))].join(', ')}, which the calibration never saw. Calibration points: the models the correction was fitted on; "after" there is the regressor's leave-one-out figure (each point corrected by a fit without it).`,
    '',
    '| metric | held out, before calibration | held out, after calibration | all points, before calibration | calibration points, before | calibration points, after (leave-one-out) | correction | measured inside the 90% interval (before calibration) | capped before / after |',
    '|---|---|---|---|---|---|---|---|---|',
    ...summary,
  ].join('\n')
}
