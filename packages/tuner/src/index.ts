/**
 * @module @kerneltune/tuner
 * Tier 1 runs and Tier 2 tune sessions over measurement backend plugins (the MeasurementBackend
 * contract of @kerneltune/core; the backends themselves live in @kerneltune/backends). A run enumerates the
 * legal combinations of a catalog snapshot, measures each (result cache first, N repetitions,
 * early termination), compares each to the baseline (trimmed means, Welch/Yuen, Cohen's d),
 * applies a quality gate and stores a summary. A tune session narrows the space with the run's
 * evidence and searches the rest with a search strategy, persisting its state after every trial.
 *
 * @example
 * ```ts
 * import { createRegistry } from '@kerneltune/core'
 * import { createCatalog } from '@kerneltune/catalog'
 * import { openStore } from '@kerneltune/store'
 * import { analyticalBackend } from '@kerneltune/backends'
 * import { createRun, executeRun } from '@kerneltune/tuner'
 * const store = await openStore(':memory:')
 * const registry = createRegistry([myEngine(), analyticalBackend()])
 * const run = await createRun(store, { model, hardware, engine: 'vllm', backend: 'analytical' }, { catalog: createCatalog(), registry, tenant: 'default' })
 * const done = await executeRun(run.id, { store, registry })
 * console.log(done.summary)
 * ```
 */
export { RunRequestSchema, TuneRequestSchema, TARGET_METRICS, RUN_DESIGNS, ROUNDS_TESTS, type RunDesign, type RunRequest, type RunRequestInput, type TuneRequest, type TuneRequestInput, type TargetMetric } from './request.ts'
export type { RunEvent, TuneEvent, TunerEvent } from './events.ts'
export { modelHash, hardwareFingerprint, workloadFingerprint, deviceFingerprint, comboCacheKey, type CacheScope } from './fingerprint.ts'
export { createRun, planCombos, runOptions, type CreateRunDeps, type RunOptions } from './run/create.ts'
export { executeRun, type ExecuteRunDeps, type RunObserver } from './run/execute.ts'
export { RUN_OWNER_LEASE_MS } from './run/deps.ts'
export { executeExperimentRun, INTERRUPT, interruptedError, type ExperimentHooks, type ExperimentSummary, type InterleavedSummary } from './run/experiment-run.ts'
export { evaluateCombo, type EvaluateComboDeps, type EvaluateComboResult } from './run/evaluate.ts'
export { summarizeRun, noiseOf, paretoFrontier, proxyLabel, unmeasuredDimensions, type RunSummary, type ParetoPoint, type ProxyLabel, type NoiseEstimate } from './run/summary.ts'
export { comboMetrics, samplesOf } from './run/metrics.ts'
export { assessRepetitions, minRoundsForPairedBeats, objectivesTest, pairedBeats, repetitionValues, runObjectives, runRecordLines, servedMetrics, storedObjectives, type RunObjectives } from './run/objectives.ts'
export { applyRun, type ApplyResult } from './run/apply.ts'
export { recordMeasuredRun, type MeasuredLevel, type MeasuredRun } from './run/measured-run.ts'
export { planThroughCatalog, type SweepPlan, type SweepPlanMode } from './run/sweep-plan.ts'
export { repetitionObjectives, repsAsRequests, type InProcessArm, type InProcessRep, type RepetitionObjectives } from './run/repetition-objectives.ts'
export { runVerdict, VERDICT_KINDS, type RunVerdict, type VerdictAa, type VerdictFigure, type VerdictInput, type VerdictKind, type VerdictOptions, type VerdictPower } from './run/verdict.ts'
export { dimensionSensitivity, narrow, type DimensionSensitivity, type Narrowing } from './tune/narrow.ts'
export { classifyFailure, FAILURE_KINDS, type FailureKind, type TrialFailure } from './tune/failure.ts'
export { startTune, runTune, measureTrial, meanVariance, trialOutcome, type TuneDeps, type RunTuneDeps, type MeasureTrials, type TrialMeasurement } from './tune/session.ts'
export { randomStrategy, RANDOM_STRATEGY } from './tune/random-strategy.ts'
export { searchStrategies, DEFAULT_STRATEGY } from './tune/strategies.ts'
export { findBackend, backendForRun, modelFileRunOptions, ownsBackend, runModelPath, withRunBackend } from './run/backend.ts'
