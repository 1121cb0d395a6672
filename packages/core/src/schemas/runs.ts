import { z } from 'zod'
import { ComboSchema } from './combo.ts'
import { HardwareSpecSchema } from './hardware.ts'
import { ModelSpecSchema } from './model.ts'
import { RegistryKernelUseSchema } from './registry-kernel.ts'
import { WorkloadSchema } from './workload.ts'

/** Shared types of Tier 1 runs, Tier 2 tune sessions and the Tier 3 registry (seed data model). */

export const RunModeSchema = z.enum(['exhaustive', 'quick'])
export const RunStatusSchema = z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled'])
export const QualityGateMethodSchema = z.enum(['topk5', 'pareto', 'regression', 'manual'])
export type RunMode = z.output<typeof RunModeSchema>
export type RunStatus = z.output<typeof RunStatusSchema>
export type QualityGateMethod = z.output<typeof QualityGateMethodSchema>

export const RunTargetSchema = z.object({
  model: ModelSpecSchema,
  hardware: HardwareSpecSchema,
  engine: z.string().min(1),
  engineVersion: z.string().min(1),
  workload: WorkloadSchema,
})
export type RunTarget = z.output<typeof RunTargetSchema>

export const RepetitionMetricsSchema = z.object({
  latencyMs: z.number().nonnegative(),
  throughputTps: z.number().nonnegative().optional(),
  prefillTps: z.number().nonnegative().optional(),
  decodeTps: z.number().nonnegative().optional(),
  ttftMs: z.number().nonnegative().optional(),
  peakMemoryBytes: z.number().nonnegative().optional(),
  breakdown: z.record(z.string(), z.number()).optional(),
})

/** Summary metrics of one measured combination. */
export const ComboMetricsSchema = z.object({
  throughputTps: z.number().nonnegative().optional(),
  latencyP50Ms: z.number().nonnegative(),
  latencyP95Ms: z.number().nonnegative(),
  latencyP99Ms: z.number().nonnegative(),
  peakMemoryBytes: z.number().nonnegative().optional(),
  breakdown: z.record(z.string(), z.number()).optional(),
})
export type ComboMetrics = z.output<typeof ComboMetricsSchema>

export const RunComboStatusSchema = z.enum(['pending', 'measured', 'failed', 'skipped'])

export const RunComboSchema = z.object({
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

export const RunSchema = z.object({
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

export const TuneStatusSchema = z.enum(['running', 'paused', 'completed', 'cancelled', 'failed'])
export type TuneStatus = z.output<typeof TuneStatusSchema>

export const TuneBudgetSchema = z
  .object({
    trials: z.number().int().positive().max(100_000).optional(),
    minutes: z.number().positive().max(100_000).optional(),
  })
  .refine((b) => b.trials !== undefined || b.minutes !== undefined, 'give trials, minutes or both')
export type TuneBudget = z.output<typeof TuneBudgetSchema>

export const TuneSessionSchema = z.object({
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

export const TuneTrialSchema = z.object({
  sessionId: z.string(),
  index: z.number().int().nonnegative(),
  config: ComboSchema,
  outcome: z.enum(['ok', 'failed']),
  value: z.number().nullable(),
  metrics: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
})
export type TuneTrial = z.output<typeof TuneTrialSchema>

export const RegistryStatusSchema = z.enum(['proposed', 'approved', 'deprecated'])
export const RegistryEntrySchema = z.object({
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

export const RegistryEventSchema = z.object({
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
export const RoleSchema = z.enum(['viewer', 'operator', 'approver', 'admin', 'superadmin'])
export type Role = z.output<typeof RoleSchema>
