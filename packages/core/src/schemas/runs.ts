import { z } from 'zod'
import { boundedJsonRecord, type JsonBounds } from './bounded-json.ts'
import { ComboSchema } from './combo.ts'
import { HardwareSpecSchema } from './hardware.ts'
import { ModelSpecSchema } from './model.ts'
import { RegistryKernelUseSchema } from './registry-kernel.ts'
import { WorkloadSchema } from './workload.ts'

/**
 * Shared types of Tier 1 runs, Tier 2 tune sessions and the Tier 3 registry (seed data model).
 * Each schema's zod type is spelled out rather than inferred so that JSR can publish the package
 * without slow types; the compiler checks each annotation against its schema.
 */

export const RunModeSchema: z.ZodEnum<{ exhaustive: 'exhaustive'; quick: 'quick' }> = z.enum(['exhaustive', 'quick'])
export const RunStatusSchema: z.ZodEnum<{
  queued: 'queued'; running: 'running'; succeeded: 'succeeded'; failed: 'failed'; cancelled: 'cancelled'
}> = z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled'])
export const QualityGateMethodSchema: z.ZodEnum<{
  topk5: 'topk5'; pareto: 'pareto'; regression: 'regression'; manual: 'manual'
}> = z.enum(['topk5', 'pareto', 'regression', 'manual'])
export type RunMode = z.output<typeof RunModeSchema>
export type RunStatus = z.output<typeof RunStatusSchema>
export type QualityGateMethod = z.output<typeof QualityGateMethodSchema>

/** A run's options: a sweep's spec and settings are a few KiB; far past that is not a run's options. */
export const RUN_OPTIONS_BOUNDS: JsonBounds = { maxDepth: 16, maxBytes: 1024 * 1024 }

export const RunTargetSchema: z.ZodObject<{
  model: typeof ModelSpecSchema
  hardware: typeof HardwareSpecSchema
  engine: z.ZodString
  engineVersion: z.ZodString
  workload: typeof WorkloadSchema
  options: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>
  modelPath: z.ZodOptional<z.ZodString>
}> = z.object({
  model: ModelSpecSchema,
  hardware: HardwareSpecSchema,
  engine: z.string().min(1),
  engineVersion: z.string().min(1),
  workload: WorkloadSchema,
  /**
   * What measuring the run needs later (the tuner's RunOptions, a sweep's or bench's settings),
   * stored with the target so that a restarted process or another worker has it. Free-form here
   * because each writer owns its keys; bounded because a stored run is read back and serialised on
   * every list and event.
   */
  options: boundedJsonRecord(RUN_OPTIONS_BOUNDS).optional(),
  /** The model file a model-file backend measures (a GGUF, an ONNX graph). */
  modelPath: z.string().optional(),
})
export type RunTarget = z.output<typeof RunTargetSchema>

export const ServedRequestSchema: z.ZodObject<{
  ok: z.ZodBoolean
  startMs: z.ZodNumber
  e2eMs: z.ZodNumber
  ttftMs: z.ZodOptional<z.ZodNumber>
  outputTokens: z.ZodOptional<z.ZodNumber>
  itlMs: z.ZodArray<z.ZodNumber>
  error: z.ZodOptional<z.ZodString>
}> = z.object({
  ok: z.boolean(),
  startMs: z.number(),
  e2eMs: z.number().nonnegative(),
  ttftMs: z.number().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  itlMs: z.array(z.number()),
  error: z.string().optional(),
})
export const ServedLoadSchema: z.ZodObject<{ durationS: z.ZodNumber; requests: z.ZodArray<typeof ServedRequestSchema> }> = z.object({
  durationS: z.number().nonnegative(),
  requests: z.array(ServedRequestSchema),
})

export const RepetitionMetricsSchema: z.ZodObject<{
  latencyMs: z.ZodNumber
  throughputTps: z.ZodOptional<z.ZodNumber>
  prefillTps: z.ZodOptional<z.ZodNumber>
  decodeTps: z.ZodOptional<z.ZodNumber>
  ttftMs: z.ZodOptional<z.ZodNumber>
  peakMemoryBytes: z.ZodOptional<z.ZodNumber>
  breakdown: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodNumber>>
  serving: z.ZodOptional<typeof ServedLoadSchema>
}> = z.object({
  latencyMs: z.number().nonnegative(),
  throughputTps: z.number().nonnegative().optional(),
  prefillTps: z.number().nonnegative().optional(),
  decodeTps: z.number().nonnegative().optional(),
  ttftMs: z.number().nonnegative().optional(),
  peakMemoryBytes: z.number().nonnegative().optional(),
  breakdown: z.record(z.string(), z.number()).optional(),
  /** A serving backend's load run: its duration and requests (see ServedLoad in the measurement contract). */
  serving: ServedLoadSchema.optional(),
})

/** Summary metrics of one measured combination. */
export const ComboMetricsSchema: z.ZodObject<{
  throughputTps: z.ZodOptional<z.ZodNumber>
  latencyP50Ms: z.ZodNumber
  latencyP95Ms: z.ZodNumber
  latencyP99Ms: z.ZodNumber
  peakMemoryBytes: z.ZodOptional<z.ZodNumber>
  breakdown: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodNumber>>
}> = z.object({
  throughputTps: z.number().nonnegative().optional(),
  latencyP50Ms: z.number().nonnegative(),
  latencyP95Ms: z.number().nonnegative(),
  latencyP99Ms: z.number().nonnegative(),
  peakMemoryBytes: z.number().nonnegative().optional(),
  breakdown: z.record(z.string(), z.number()).optional(),
})
export type ComboMetrics = z.output<typeof ComboMetricsSchema>

export const RunComboStatusSchema: z.ZodEnum<{
  pending: 'pending'; measured: 'measured'; failed: 'failed'; skipped: 'skipped'
}> = z.enum(['pending', 'measured', 'failed', 'skipped'])

export const RunComboSchema: z.ZodObject<{
  runId: z.ZodString
  index: z.ZodNumber
  comboHash: z.ZodString
  combo: typeof ComboSchema
  status: typeof RunComboStatusSchema
  simulated: z.ZodBoolean
  cached: z.ZodBoolean
  isBaseline: z.ZodBoolean
  repetitions: z.ZodArray<typeof RepetitionMetricsSchema>
  metrics: z.ZodNullable<typeof ComboMetricsSchema>
  comparison: z.ZodNullable<z.ZodRecord<z.ZodString, z.ZodUnknown>>
  gate: z.ZodNullable<z.ZodObject<{ passed: z.ZodBoolean; reasons: z.ZodArray<z.ZodString> }>>
  error: z.ZodNullable<z.ZodString>
  kernels: z.ZodOptional<z.ZodArray<typeof RegistryKernelUseSchema>>
}> = z.object({
  runId: z.string(),
  index: z.number().int().nonnegative(),
  comboHash: z.string(),
  combo: ComboSchema,
  status: RunComboStatusSchema,
  /** True when the numbers come from a model, not a measurement. */
  simulated: z.boolean(),
  cached: z.boolean(),
  isBaseline: z.boolean(),
  repetitions: z.array(RepetitionMetricsSchema),
  metrics: ComboMetricsSchema.nullable(),
  /** Statistics against the baseline (trimmed means, Welch, Cohen's d), as the stats package reports them. */
  comparison: z.record(z.string(), z.unknown()).nullable(),
  gate: z.object({ passed: z.boolean(), reasons: z.array(z.string()) }).nullable(),
  error: z.string().nullable(),
  /** Registry kernels this combination's measurement selected or excluded (runs that opted in). */
  kernels: z.array(RegistryKernelUseSchema).optional(),
})
export type RunCombo = z.output<typeof RunComboSchema>

export const RunSchema: z.ZodObject<{
  id: z.ZodString
  tenant: z.ZodString
  status: typeof RunStatusSchema
  mode: typeof RunModeSchema
  target: typeof RunTargetSchema
  snapshotHash: z.ZodString
  catalogVersion: z.ZodString
  qualityGate: typeof QualityGateMethodSchema
  backend: z.ZodString
  repetitions: z.ZodNumber
  progress: z.ZodObject<{ done: z.ZodNumber; total: z.ZodNumber }>
  summary: z.ZodNullable<z.ZodRecord<z.ZodString, z.ZodUnknown>>
  error: z.ZodNullable<z.ZodString>
  createdAt: z.ZodString
  updatedAt: z.ZodString
  deletedAt: z.ZodNullable<z.ZodString>
}> = z.object({
  id: z.string(),
  tenant: z.string(),
  status: RunStatusSchema,
  mode: RunModeSchema,
  target: RunTargetSchema,
  snapshotHash: z.string(),
  catalogVersion: z.string(),
  qualityGate: QualityGateMethodSchema,
  backend: z.string(),
  repetitions: z.number().int().positive(),
  progress: z.object({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative() }),
  summary: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletedAt: z.string().nullable(),
})
export type Run = z.output<typeof RunSchema>

export const TuneStatusSchema: z.ZodEnum<{
  running: 'running'; paused: 'paused'; completed: 'completed'; cancelled: 'cancelled'; failed: 'failed'
}> = z.enum(['running', 'paused', 'completed', 'cancelled', 'failed'])
export type TuneStatus = z.output<typeof TuneStatusSchema>

export const TuneBudgetSchema: z.ZodObject<{
  trials: z.ZodOptional<z.ZodNumber>
  minutes: z.ZodOptional<z.ZodNumber>
}> = z
  .object({
    trials: z.number().int().positive().max(100_000).optional(),
    minutes: z.number().positive().max(100_000).optional(),
  })
  .refine((b) => b.trials !== undefined || b.minutes !== undefined, 'give trials, minutes or both')
export type TuneBudget = z.output<typeof TuneBudgetSchema>

export const TuneSessionSchema: z.ZodObject<{
  id: z.ZodString
  tenant: z.ZodString
  runId: z.ZodString
  status: typeof TuneStatusSchema
  strategy: z.ZodString
  budget: typeof TuneBudgetSchema
  narrowing: z.ZodRecord<z.ZodString, z.ZodUnknown>
  optimizerState: z.ZodUnknown
  trialsDone: z.ZodNumber
  elapsedMs: z.ZodNumber
  best: z.ZodNullable<z.ZodObject<{ trial: z.ZodNumber; config: typeof ComboSchema; value: z.ZodNumber }>>
  error: z.ZodNullable<z.ZodString>
  createdAt: z.ZodString
  updatedAt: z.ZodString
}> = z.object({
  id: z.string(),
  tenant: z.string(),
  runId: z.string(),
  status: TuneStatusSchema,
  strategy: z.string(),
  budget: TuneBudgetSchema,
  narrowing: z.record(z.string(), z.unknown()),
  optimizerState: z.unknown(),
  trialsDone: z.number().int().nonnegative(),
  elapsedMs: z.number().nonnegative(),
  best: z.object({ trial: z.number().int(), config: ComboSchema, value: z.number() }).nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type TuneSession = z.output<typeof TuneSessionSchema>

export const TuneTrialSchema: z.ZodObject<{
  sessionId: z.ZodString
  index: z.ZodNumber
  config: typeof ComboSchema
  outcome: z.ZodEnum<{ ok: 'ok'; infeasible: 'infeasible'; failed: 'failed' }>
  value: z.ZodNullable<z.ZodNumber>
  metrics: z.ZodNullable<z.ZodRecord<z.ZodString, z.ZodUnknown>>
  createdAt: z.ZodString
}> = z.object({
  sessionId: z.string(),
  index: z.number().int().nonnegative(),
  config: ComboSchema,
  /**
   * ok: measured and (with latency objectives) meeting them; infeasible: measured but missing an
   * objective (its metrics say which, by how much); failed: did not run (hidden constraint).
   */
  outcome: z.enum(['ok', 'infeasible', 'failed']),
  value: z.number().nullable(),
  metrics: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
})
export type TuneTrial = z.output<typeof TuneTrialSchema>

export const RegistryStatusSchema: z.ZodEnum<{
  proposed: 'proposed'; approved: 'approved'; deprecated: 'deprecated'
}> = z.enum(['proposed', 'approved', 'deprecated'])
export const RegistryEntrySchema: z.ZodObject<{
  id: z.ZodString
  tenant: z.ZodString
  name: z.ZodString
  kernelFamily: z.ZodString
  provider: z.ZodString
  source: z.ZodString
  status: typeof RegistryStatusSchema
  metadata: z.ZodRecord<z.ZodString, z.ZodUnknown>
  createdAt: z.ZodString
  updatedAt: z.ZodString
}> = z.object({
  id: z.string(),
  tenant: z.string(),
  name: z.string().min(1).max(200),
  kernelFamily: z.string().min(1).max(200),
  provider: z.string().min(1).max(200),
  source: z.string().max(1_000_000),
  status: RegistryStatusSchema,
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type RegistryEntry = z.output<typeof RegistryEntrySchema>

export const RegistryEventSchema: z.ZodObject<{
  id: z.ZodString
  entryId: z.ZodString
  action: z.ZodEnum<{ submit: 'submit'; approve: 'approve'; deprecate: 'deprecate' }>
  actor: z.ZodString
  reason: z.ZodNullable<z.ZodString>
  createdAt: z.ZodString
}> = z.object({
  id: z.string(),
  entryId: z.string(),
  action: z.enum(['submit', 'approve', 'deprecate']),
  actor: z.string(),
  reason: z.string().nullable(),
  createdAt: z.string(),
})
export type RegistryEvent = z.output<typeof RegistryEventSchema>

/**
 * API roles. `admin` administers its own tenant; `superadmin` (the bootstrap token) is the only
 * role that may create tenants and administer across them.
 */
export const RoleSchema: z.ZodEnum<{
  viewer: 'viewer'; operator: 'operator'; approver: 'approver'; admin: 'admin'; superadmin: 'superadmin'
}> = z.enum(['viewer', 'operator', 'approver', 'admin', 'superadmin'])
export type Role = z.output<typeof RoleSchema>
