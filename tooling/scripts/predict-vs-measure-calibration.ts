/**
 * The fallback calibration of predict-vs-measure.ts, used while no trained predictor with a
 * calibrate() exists: one multiplicative factor per metric, the geometric mean of measured ÷
 * predicted over the calibration points (least squares in log space), and the mean absolute
 * percentage error used to report it.
 */
export interface Point {
  readonly calibration: boolean
  readonly predicted: { readonly decodeTps: number; readonly prefillTps: number }
  readonly measured: { readonly decodeTps: number; readonly prefillTps: number }
}

export function calibrateRatio(points: readonly Point[]): { decodeTps: number; prefillTps: number } {
  if (points.length === 0) throw new Error('calibration needs at least one point')
  const factor = (k: 'decodeTps' | 'prefillTps') => Math.exp(points.reduce((s, p) => s + Math.log(p.measured[k] / p.predicted[k]), 0) / points.length)
  return { decodeTps: factor('decodeTps'), prefillTps: factor('prefillTps') }
}

export function mape<P>(points: readonly P[], predicted: (p: P) => number, measured: (p: P) => number): number {
  if (points.length === 0) return Number.NaN
  return points.reduce((s, p) => s + Math.abs(predicted(p) - measured(p)) / measured(p), 0) / points.length
}
