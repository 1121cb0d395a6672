/**
 * @module @kerneltune/stats
 * Statistics for kernel timings: trimmed means, percentiles, Welch's t-test (and Yuen's test on
 * trimmed means) with exact p-values from the Student t distribution, Cohen's d, confidence
 * intervals, the early-termination rule, and the four quality gates.
 *
 * @example
 * ```ts
 * import { compareToBaseline, evaluateGate } from '@kerneltune/stats'
 * const cmp = compareToBaseline([10.1, 10.3, 9.9, 10.0, 10.2], [11.0, 11.2, 10.9, 11.1, 11.3], { higherIsBetter: false })
 * console.log(cmp.verdict, cmp.welch.pValue, cmp.cohensD) // 'better', ~1e-5, ~-6.3
 * ```
 */
export {
  checkSamples,
  mean,
  median,
  percentile,
  sorted,
  standardDeviation,
  summarize,
  trim,
  trimCount,
  trimmedMean,
  variance,
  winsorizedVariance,
  type Summary,
} from './descriptive.ts'
export { lnGamma, regularizedBeta, regularizedGammaP, regularizedGammaQ } from './special.ts'
export {
  normalCdf,
  normalPdf,
  normalQuantile,
  studentTCdf,
  studentTPdf,
  studentTQuantile,
  studentTTwoSided,
} from './distributions.ts'
export { describePMethod, signFlipDistribution, signFlipMethod, signFlipPValue, signFlipTest, signFlipTrimmedMeanDistribution, type SignFlipMethod, type SignFlipOptions, type SignFlipResult } from './sign-flip.ts'
export { differenceInterval, trimmedMeanTest, welchTTest, yuenTTest, type TTestResult } from './t-tests.ts'
export { confidenceInterval, trimmedConfidenceInterval, type Interval } from './interval.ts'
export { pairedRatioInterval, type RatioInterval } from './ratio.ts'
export { CONFIRM_METHOD, DEFAULT_CONFIRM_ROUNDS, confirmVerdict, runConfirmation, type ConfirmOptions, type ConfirmVerdict, type SpeedupConfirmation } from './confirm.ts'
export { cohensD, effectLabel, type EffectLabel } from './effect-size.ts'
export { blockedComparison, type BlockedAnalysis, type BlockedOptions, type BlockedTreatmentComparison } from './blocked.ts'
export { compareToBaseline, type CompareOptions, type Comparison, type Verdict } from './compare.ts'
export { shouldStopEarly, type EarlyStopCandidate, type EarlyStopDecision, type EarlyStopOptions } from './early-stop.ts'
export { evaluateGate } from './gates/index.ts'
export {
  DEFAULT_GATE,
  GATE_METHODS,
  metricDirection,
  type ComboGateResult,
  type Direction,
  type GateCandidate,
  type GateInput,
  type GateMethod,
  type GateResult,
  type GateStatus,
  type MetricSamples,
} from './gates/types.ts'
