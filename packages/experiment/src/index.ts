/**
 * @module @kerneltune/experiment
 * The experiment designs every kerneltune entry point measures with, over any measurement backend
 * and any engine (the engine package brings its translator and its defaults; the designs know no
 * engine): sequential with early stopping (`runSweep`), interleaved rounds with an A/A arm and a
 * sign-flip test (`runInterleavedSweep`), and the paired analysis behind them. Moved here from an
 * engine package (issue 25) so runs, tune sessions, workers and the CLI share one
 * implementation.
 *
 * @example
 * ```ts
 * import { runInterleavedSweep } from '@kerneltune/experiment'
 * const r = await runInterleavedSweep({ backend, engine, withoutDefaults, candidates: [{ combo: { threads: '1' } }], rounds: 8, seed: 1 })
 * console.log(r.verdict, r.aa.declaredWinner)
 * ```
 */
export { summarizeMetric, summarizeRepetitions, type MetricSummary, type RepetitionSummary } from './summary.ts'
export { EXPERIMENT_METRICS, SWEEP_GATE_DEFAULTS, SWEEP_METRICS, analyzeSweep, comparedMetrics, metricSamples, type AnalyzeOptions, type ExperimentMetric, type MeasuredCombo, type SweepAnalysis, type SweepComboStats, type SweepMetric } from './sweep-analysis.ts'
export { compareWithBaseline, measureWithEarlyStop, type EarlyStopMeasureOptions, type EarlyStopMeasurement, type EarlyStopRival } from './sequential.ts'
export { runSweep, sweepComboHash, type SweepOptions, type SweepProgress, type SweepResult } from './sweep.ts'
export { runInterleavedSweep, type AaCheck, type InterleavedComboStats, type InterleavedProgress, type InterleavedSweepOptions, type InterleavedSweepResult } from './interleaved-sweep.ts'
export { SIGN_FLIP_RESAMPLES, SIGN_FLIP_TRIM, blockedComparisons, compareRounds, minRoundsToDecide, pairedComparison, pValueMethod, signFlipMethodOf, type PairedComparison, type RoundsTest } from './paired.ts'
export { budgetJson, budgetText, planBudget, REPORT_RESERVE_S, ROUNDS_SHARE_WITH_CAPACITY, type BudgetSearch, type BudgetUse, type SweepBudget } from './time-budget.ts'
export { sequentialLoop, type SequentialLoopOptions } from './sequential-loop.ts'
