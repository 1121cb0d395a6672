/**
 * `kerneltune sweep`'s experiment (issue 36: the CLI parses flags, calls and prints): planning,
 * the stored run measured by the tuner's executor with the composed registry, the reports, the
 * objectives and capacity read back from the stored run, and what makes a sweep resumable.
 */
export { sweepGguf, type GgufModel, type ServedSweep } from './gguf.node.ts'
export { planServedSweep, sweepServed } from './served.node.ts'
export { holdRun, LEASE_MS, HEARTBEAT_MS, newOwner, ownerLiveness, storedSweepSpec, type RunHold, type SweepSpec } from './hold.node.ts'
export { readStoredObjectives, storedRecords, sweepCapacity, type CapacityReport, type CapacityBudget, type ObjectivesText, type StoredObjectives } from './objectives.node.ts'
export { onnxCacheDir, sweepOnnx } from './onnx.node.ts'
export { openOutFile, type OutFile } from './out.node.ts'
export { comboLabel, parseSpace, planOnnxSweep, planServingSweep, planSweep, SWEEP_DEFAULTS, type SweepFlags, type SweepMode, type SweepPlan } from './plan.ts'
export { decisionJson, decisionText, isInterleaved, launchNote, planOutcome, renderInterleaved, renderOnnx, renderSweep, roundTiming, type SweepDecision, type SweepText } from './report.ts'
export { resumeCommandOf, sweepAsRun, type SweepAsRun, type SweepDesignSettings, type SweepSession } from './run.node.ts'
export type { SweepInput, SweepIo, SweepOutcome, SweepProgress } from './session.ts'
