/**
 * The comparison kerneltune reports for every combination against the baseline: trimmed means,
 * the difference with its interval, a Welch-type test (Yuen's test on the trimmed means, which is
 * Welch's test when nothing is trimmed), Cohen's d, and a verdict that says "indistinguishable"
 * when the data cannot tell the two apart.
 */
import { kerneltuneError } from '@kerneltune/core/errors'
import { trimCount, trimmedMean } from './descriptive.ts'
import { cohensD, effectLabel, type EffectLabel } from './effect-size.ts'
import type { Interval } from './interval.ts'
import { differenceInterval, yuenTTest, type TTestResult } from './t-tests.ts'

export type Verdict = 'better' | 'worse' | 'indistinguishable'

export interface CompareOptions {
  /** True for throughput-like metrics, false for latency-like ones. */
  readonly higherIsBetter: boolean
  /** Significance level of the two-sided test; default 0.05. */
  readonly alpha?: number
  /** Proportion cut from each end before averaging; default 0.1. */
  readonly trim?: number
}

export interface Comparison {
  readonly n: number
  readonly baselineN: number
  readonly trimmedMean: number
  readonly baselineTrimmedMean: number
  /** candidate − baseline, in the metric's unit. */
  readonly delta: number
  /** delta / |baseline|; NaN when the baseline is 0. */
  readonly relativeDelta: number
  /** relativeDelta signed so that positive always means better. */
  readonly improvement: number
  /** 'yuen' when values were trimmed, 'welch' when the trim cut nothing (the two then agree). */
  readonly test: 'welch' | 'yuen'
  readonly welch: TTestResult
  /** Confidence interval (1 − alpha) of delta. */
  readonly interval: Interval
  /** Cohen's d of candidate − baseline on the raw samples. */
  readonly cohensD: number
  readonly effect: EffectLabel
  readonly verdict: Verdict
}

/** Compares candidate samples to baseline samples; each needs at least 2 values. */
export function compareToBaseline(samples: readonly number[], baselineSamples: readonly number[], options: CompareOptions): Comparison {
  const alpha = options.alpha ?? 0.05
  const trim = options.trim ?? 0.1
  if (!(alpha > 0 && alpha < 1)) throw kerneltuneError('INVALID_INPUT', `alpha must be in (0, 1), got ${alpha}`)
  const welch = yuenTTest(samples, baselineSamples, trim)
  const tm = trimmedMean(samples, trim)
  const bm = trimmedMean(baselineSamples, trim)
  const delta = tm - bm
  const relativeDelta = bm === 0 ? Number.NaN : delta / Math.abs(bm)
  const sign = options.higherIsBetter ? 1 : -1
  const d = cohensD(samples, baselineSamples)
  const significant = welch.pValue < alpha
  const verdict: Verdict = !significant || delta === 0 ? 'indistinguishable' : sign * delta > 0 ? 'better' : 'worse'
  const trimmed = trimCount(samples.length, trim) > 0 || trimCount(baselineSamples.length, trim) > 0
  return {
    n: samples.length,
    baselineN: baselineSamples.length,
    trimmedMean: tm,
    baselineTrimmedMean: bm,
    delta,
    relativeDelta,
    improvement: sign * relativeDelta,
    test: trimmed ? 'yuen' : 'welch',
    welch,
    interval: differenceInterval(welch, 1 - alpha),
    cohensD: d,
    effect: effectLabel(d),
    verdict,
  }
}
