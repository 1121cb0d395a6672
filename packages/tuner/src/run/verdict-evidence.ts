/**
 * What an interleaved run's evidence allows a verdict to say: whether its rounds can reach
 * significance at all (the power of its test), and what its A/A arm shows. A sign-flip test over n
 * rounds has a smallest p-value, so below some n nothing can be called better, the A/A arm
 * included: its false-winner rate is then 0% by construction and says nothing about the noise
 * (issue 34 item 12). The A/A arm's own measured difference does: when the defaults against
 * themselves differ by as much as the candidates differ from them, the noise is larger than every
 * effect measured, and a decision it contradicts is not a decision.
 *
 * The A/A rule (issue 36): the A/A arm is a known null, the same settings on both sides, so its
 * true difference is 0. Its reading withholds the verdict when it is implausible for a null:
 * (1) the design's own test called it better than the defaults; (2) |A/A| is at least the
 * difference of the candidate the verdict would name (with no candidate named: at least every
 * candidate's), so nothing measured rose above the noise; or (3) its 95% interval lies wholly
 * outside ±band, the smallest difference the run treats as real (the regression gate's epsilon,
 * 2% by default): identical settings then differ measurably, so the machine drifted during the
 * run and any comparison made in it is suspect. Rule 3 alone fires on a quiet machine in about
 * 5% of runs at most (an interval that misses 0 by chance), and less, since it must also clear
 * the band.
 */
import { minRoundsToDecide } from '@kerneltune/experiment'
import type { InterleavedSummary } from './experiment-summary.ts'
import { minRoundsForPairedBeats } from './objectives.ts'
import { improvementText, signedPercent } from '@kerneltune/serving'

/** Whether the deciding test can reach p < alpha at the rounds measured. */
export interface VerdictPower {
  rounds: number
  /** The test, in words ('sign-flip test on decodeTps'). */
  test: string
  /** The fewest rounds at which it can reach p < alpha; null when any number can (a t-test). */
  minRounds: number | null
  canDecide: boolean
  alpha: number
  /** '3 rounds cannot reach p < 0.05: the sign-flip test on decodeTps needs at least 7'; '' when they can. */
  text: string
}

/** What the A/A arm (the defaults measured against themselves, every round) shows. */
export interface VerdictAa {
  metric: string
  /** Its measured difference from the defaults (a ratio minus one, positive = better); null when not compared. */
  improvement: number | null
  /** The largest |difference| of a candidate from the defaults on the same metric; null without one. */
  largestEffect: number | null
  /** |A/A difference| ≥ every candidate's: the noise is larger than every effect measured. */
  noiseDominates: boolean
  /** Its 95% interval lies wholly outside ±band: the defaults measurably differ from themselves (rule 3 above). */
  outsideBand: boolean
  /** The band around 0 that rule 3 uses (a ratio: 0.02 is ±2%). */
  band: number
  /** The design's rule called the A/A arm better than the defaults. */
  declaredWinner: boolean
  /** The rule's false-winner rate under sign-flip resampling; null where the test cannot reach p < alpha (then it is 0 by construction). */
  falseWinnerRate: number | null
  /** What it shows, in one or two sentences. */
  text: string
}

export function powerText(rounds: number, test: string, minRounds: number | null, alpha: number): string {
  return minRounds !== null && rounds < minRounds ? `${rounds} rounds cannot reach p < ${alpha}: the ${test} needs at least ${minRounds}` : ''
}

/**
 * The power of the test that decides: the objectives' paired sign-flip test on the objective's
 * per-round values when they decide against feasible defaults, otherwise the design's own test.
 */
export function designPower(e: InterleavedSummary, alpha: number, objective?: string): VerdictPower {
  const minRounds = objective !== undefined ? minRoundsForPairedBeats(alpha) : e.test === 'sign-flip' ? minRoundsToDecide(alpha) : null
  const test = objective !== undefined ? `paired sign-flip test on ${objective}` : `${e.test} test on ${e.metric}`
  const text = powerText(e.rounds, test, minRounds, alpha)
  return { rounds: e.rounds, test, minRounds, canDecide: text === '', alpha, text }
}

/** The A/A arm's reading against every candidate's paired difference on the design's metric. */
/** The default band of rule 3: the regression gate's default epsilon (a difference under 2% is no difference to the gate). */
export const AA_BAND = 0.02

export function aaEvidence(e: InterleavedSummary, alpha: number, band = AA_BAND): VerdictAa {
  const c = e.aa.comparison
  const effects = Object.values(e.paired).map((p) => p?.improvement).filter((x): x is number => typeof x === 'number' && Number.isFinite(x)).map(Math.abs)
  const largestEffect = effects.length ? Math.max(...effects) : null
  const improvement = c && typeof c.improvement === 'number' && Number.isFinite(c.improvement) ? c.improvement : null
  // An A/A arm that read exactly the defaults (a prediction repeated) shows no noise, however small the effects.
  const noiseDominates = improvement !== null && improvement !== 0 && largestEffect !== null && Math.abs(improvement) >= largestEffect
  const low = c?.interval.low
  const high = c?.interval.high
  const outsideBand = typeof low === 'number' && typeof high === 'number' && Number.isFinite(low) && Number.isFinite(high) && (low > band || high < -band)
  const power = designPower(e, alpha)
  const rate = power.canDecide && typeof e.aa.falseWinnerRate === 'number' ? e.aa.falseWinnerRate : null
  const base = { metric: e.metric, improvement, largestEffect, noiseDominates, outsideBand, band, declaredWinner: e.aa.declaredWinner, falseWinnerRate: rate }
  if (improvement === null) return { ...base, text: 'The A/A arm could not be compared with the defaults (too few rounds measured both): this run has no evidence about its noise.' }
  const read = `The A/A arm (the defaults measured against themselves) read ${improvementText(improvement, e.metric)} on ${e.metric} against the defaults`
  const largest = largestEffect === null ? '' : `the largest difference of a candidate from the defaults is ${signedPercent(largestEffect).replace('+', '±')}`
  let text = e.aa.declaredWinner
    ? `False winner: ${read}, and the test called it better than the defaults: this machine's noise defeats the test at ${e.rounds} rounds.`
    : noiseDominates
      ? `${read}, as large as or larger than every difference measured (${largest}): the noise is larger than every effect measured.`
      : outsideBand
        ? `${read}, and its 95% interval (${signedPercent(low!)} to ${signedPercent(high!)}) lies wholly outside ±${(band * 100).toFixed(0)}%: the same settings differed measurably from themselves, so the machine drifted during the run.`
        : `${read}${largest ? `; ${largest}` : ''}.`
  text += rate !== null
    ? ` At this noise, ${(rate * 100).toFixed(1)}% of the A/A arm's sign-flip resamples would be called better than the defaults (the test's false-winner rate on this machine; ${alpha * 100}% is what the test allows).`
    : power.text ? ` ${power.text}, so the A/A arm has no false-winner rate to report: its measured difference is the evidence.` : ''
  return { ...base, text }
}

/**
 * Whether the A/A arm contradicts naming combination `index` (rules 1-3 above): the rule crowned
 * the A/A arm, the defaults differed from themselves by at least as much as this combination
 * differs from them, or the A/A interval lies outside the band.
 */
export function aaContradicts(aa: VerdictAa, e: InterleavedSummary, index: number, fallbackEffect: number | null): boolean {
  if (aa.declaredWinner || aa.outsideBand) return true
  if (aa.improvement === null) return false
  const own = e.paired[String(index)]?.improvement
  const effect = typeof own === 'number' && Number.isFinite(own) ? own : fallbackEffect
  return effect !== null && aa.improvement !== 0 && Math.abs(aa.improvement) >= Math.abs(effect)
}
