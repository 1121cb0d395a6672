/**
 * The per-design summary of bench/serving-noise.bench.ts: how often each design decided, how
 * often it crowned the A/A arm, and how many of its decisions a reference confirms: the bench's
 * own reference (a long interleaved run, the design under test judging itself) and, so that the
 * design is not judged only by itself, one measured by another method (bench/
 * serving-reference.bench.ts: long blocks of sequential repetitions on fresh servers; issue 23
 * item 12).
 */
import type { NoiseReport } from './noise.ts'

export interface Verdict {
  readonly verdict: string
  readonly improvement: number
  readonly p: number
  readonly df: number
  /** How a sign-flip p was computed: over all 2^n patterns, or from random ones (issue 23 item 11). */
  readonly pMethod?: 'exact' | 'resampled'
  /** Sign patterns behind p: 2^n when exact, the number of resamples when resampled. */
  readonly patterns?: number
}

export interface Trial {
  /** interleaved-paired / -blocked: the interleaved trial's measurements judged by another test. */
  readonly design: 'sequential' | 'interleaved' | 'interleaved-paired' | 'interleaved-blocked'
  readonly trial: number
  readonly loadAverage: number
  readonly seconds: number
  /** measure() calls, and the repetitions they returned (a call may return several). */
  readonly calls: number
  readonly repetitions: number
  readonly launches: number
  readonly baselineCv: number
  readonly overBudget: boolean
  readonly overBySeconds?: number
  readonly rounds?: number
  readonly noise?: NoiseReport
  readonly decided: number
  readonly candidates: number
  readonly falseWinner: boolean
  readonly aaVerdict: string
  readonly winner: string | null
  readonly perCombo: Record<string, Verdict>
}

const significant = (v: string) => v === 'better' || v === 'worse'
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN)

/**
 * A decision agrees with the reference when the reference found the same candidate significant
 * with the same sign; it contradicts it when the reference found the opposite sign; otherwise it
 * is unconfirmed (the reference did not decide, or there is no reference yet).
 */
export function classify(decision: Verdict, ref: Verdict | undefined): 'agreeing' | 'contradicting' | 'unconfirmed' {
  if (!ref || !significant(ref.verdict)) return 'unconfirmed'
  return Math.sign(decision.improvement) === Math.sign(ref.improvement) ? 'agreeing' : 'contradicting'
}

export interface Agreement {
  readonly agreeing: number
  readonly contradicting: number
  readonly unconfirmed: number
}

/** The decisions (significant verdicts) of one design's trials, each classified against a reference. */
export function countAgreement(trials: readonly Trial[], design: Trial['design'], aaLabel: string, reference?: Record<string, Verdict>): Agreement {
  let agreeing = 0
  let contradicting = 0
  let unconfirmed = 0
  for (const t of trials) {
    if (t.design !== design) continue
    for (const [combo, v] of Object.entries(t.perCombo)) {
      // The sequential design lists its A/A arm among the combos; it is counted as a false winner, not here.
      if (!significant(v.verdict) || combo === aaLabel) continue
      const c = classify(v, reference?.[combo])
      if (c === 'agreeing') agreeing++
      else if (c === 'contradicting') contradicting++
      else unconfirmed++
    }
  }
  return { agreeing, contradicting, unconfirmed }
}

export const DESIGNS = ['sequential', 'interleaved', 'interleaved-paired', 'interleaved-blocked'] as const

/**
 * Every design's decisions against every reference given (a missing reference leaves them all
 * unconfirmed): { design: { reference name: Agreement } }.
 */
export function judgeAgainst(trials: readonly Trial[], aaLabel: string, references: Record<string, Record<string, Verdict> | undefined>): Record<string, Record<string, Agreement>> {
  return Object.fromEntries(DESIGNS.filter((d) => trials.some((t) => t.design === d)).map((d) => [d, Object.fromEntries(Object.entries(references).map(([name, ref]) => [name, countAgreement(trials, d, aaLabel, ref)]))]))
}

export function summarizeDesign(trials: readonly Trial[], design: Trial['design'], aaLabel: string, reference?: Record<string, Verdict>) {
  const ts = trials.filter((x) => x.design === design)
  const { agreeing, contradicting, unconfirmed } = countAgreement(trials, design, aaLabel, reference)
  return {
    trials: ts.length,
    decided: ts.reduce((a, x) => a + x.decided, 0),
    comparisons: ts.reduce((a, x) => a + x.candidates, 0),
    agreeing,
    contradicting,
    unconfirmed,
    falseWinners: ts.filter((x) => x.falseWinner).length,
    aaSignificant: ts.filter((x) => significant(x.aaVerdict)).length,
    meanSeconds: mean(ts.map((x) => x.seconds)),
    meanRepetitions: mean(ts.map((x) => x.repetitions)),
    meanLaunches: mean(ts.map((x) => x.launches)),
    meanBaselineCv: mean(ts.map((x) => x.baselineCv)),
    meanNoiseLevel: mean(ts.flatMap((x) => (x.noise ? [x.noise.meanLevel] : []))),
    overBudget: ts.filter((x) => x.overBudget).length,
    maxOverBySeconds: Math.max(0, ...ts.map((x) => x.overBySeconds ?? 0)),
  }
}
