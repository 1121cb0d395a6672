/**
 * The requests a caller sends to create a Tier 1 run or start a Tier 2 tune session. The HTTP
 * API, the CLI and the library parse the same schemas, so a bad request fails the same way
 * everywhere (INVALID_INPUT listing every problem).
 */
import { ComboSchema, HardwareSpecSchema, ModelSpecSchema, QualityGateMethodSchema, RunModeSchema, TuneBudgetSchema, WorkloadSchema } from '@kerneltune/core'
import { isKerneltuneError } from '@kerneltune/core'
import { resolveObjectives } from '@kerneltune/serving'
import { z } from 'zod'

/** The metrics a run can rank combinations by. */
export const TARGET_METRICS = ['throughputTps', 'latencyMs'] as const
export type TargetMetric = (typeof TARGET_METRICS)[number]

/**
 * How a run's combinations are measured (@kerneltune/experiment): 'sequential', the baseline
 * first and then each combination with early stopping (the default); 'interleaved', every
 * combination once per round in a seeded random order beside the baseline and an A/A copy of it,
 * compared with the baseline of the same rounds (one job on one device: the rounds pair).
 */
export const RUN_DESIGNS = ['sequential', 'interleaved'] as const
export type RunDesign = (typeof RUN_DESIGNS)[number]
export const ROUNDS_TESTS = ['sign-flip', 'paired', 'blocked'] as const

/**
 * Latency objectives (name → limit in ms, e.g. { ttft_p99_ms: 500 }) and the objective to rank by
 * (goodput, outputTokensPerSecond, requestThroughput or a latency statistic). They are checked by
 * the one parser, @kerneltune/serving's resolveObjectives (refineObjectives below), whose error
 * lists the accepted names; the run stores them with its options so results are judged by them.
 */
const SloSchema: z.ZodRecord<z.ZodString, z.ZodNumber> = z.record(z.string().min(1).max(64), z.number().finite())
const ObjectiveSchema: z.ZodString = z.string().min(1).max(64)

/** Adds resolveObjectives' complaint (unknown name, bad limit, goodput without objectives) as an issue at the field it is about. */
function refineObjectives(r: { slo?: Record<string, number> | undefined; objective?: string | undefined }, ctx: z.core.$RefinementCtx): void {
  if (r.slo === undefined && r.objective === undefined) return
  // The objectives alone first, so that a complaint about them is put at `slo`.
  for (const [path, input] of [['slo', { slo: r.slo, objective: r.slo === undefined ? undefined : 'outputTokensPerSecond' }], ['objective', r]] as const) {
    try {
      resolveObjectives(input)
    } catch (e) {
      if (!isKerneltuneError(e)) throw e
      ctx.addIssue({ code: 'custom', message: e.message, path: [path] })
      return
    }
  }
}

// The zod types are spelled out (not inferred) so JSR can publish the package without slow types.
export const RunRequestSchema: z.ZodObject<{
  model: typeof ModelSpecSchema
  hardware: typeof HardwareSpecSchema
  engine: z.ZodString
  engineVersion: z.ZodOptional<z.ZodString>
  workload: z.ZodDefault<typeof WorkloadSchema>
  mode: z.ZodDefault<typeof RunModeSchema>
  qualityGate: z.ZodDefault<typeof QualityGateMethodSchema>
  backend: z.ZodDefault<z.ZodString>
  modelPath: z.ZodOptional<z.ZodString>
  repetitions: z.ZodDefault<z.ZodNumber>
  warmups: z.ZodDefault<z.ZodNumber>
  metric: z.ZodDefault<z.ZodEnum<{ [M in TargetMetric]: M }>>
  restrict: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodArray<z.ZodString>>>
  maxCombos: z.ZodDefault<z.ZodNumber>
  baseline: z.ZodOptional<typeof ComboSchema>
  noiseFloor: z.ZodDefault<z.ZodNumber>
  earlyStop: z.ZodDefault<z.ZodBoolean>
  margin: z.ZodOptional<z.ZodNumber>
  epsilon: z.ZodOptional<z.ZodNumber>
  useCache: z.ZodDefault<z.ZodBoolean>
  requireDevice: z.ZodOptional<z.ZodString>
  registryKernels: z.ZodDefault<z.ZodBoolean>
  design: z.ZodOptional<z.ZodEnum<{ [D in RunDesign]: D }>>
  rounds: z.ZodOptional<z.ZodNumber>
  seed: z.ZodOptional<z.ZodNumber>
  test: z.ZodOptional<z.ZodEnum<{ [T in (typeof ROUNDS_TESTS)[number]]: T }>>
  slo: z.ZodOptional<typeof SloSchema>
  objective: z.ZodOptional<typeof ObjectiveSchema>
}, z.core.$strict> = z.object({
  model: ModelSpecSchema,
  hardware: HardwareSpecSchema,
  engine: z.string().min(1).max(100),
  /** Defaults to the engine plugin's default version. */
  engineVersion: z.string().min(1).max(100).optional(),
  workload: WorkloadSchema.default({ batch: 1, phase: 'decode', promptTokens: 512, generatedTokens: 128, cudaGraphs: false }),
  mode: RunModeSchema.default('quick'),
  qualityGate: QualityGateMethodSchema.default('topk5'),
  /** A measurement backend plugin name (see the backend registry). */
  backend: z.string().min(1).max(100).default('analytical'),
  /** The model file for backends that run one (a GGUF, an ONNX graph); a path on the machine that measures. */
  modelPath: z.string().min(1).max(4096).optional(),
  repetitions: z.number().int().min(2).max(100).default(7),
  warmups: z.number().int().min(0).max(100).default(1),
  metric: z.enum(TARGET_METRICS).default('throughputTps'),
  /** Keep only these values of a dimension (a narrower sweep); every value must exist in the catalog. */
  restrict: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), z.array(z.string().min(1)).min(1).max(64)).optional(),
  /** Refuse to create a run with more legal combinations than this. */
  maxCombos: z.number().int().min(1).max(5000).default(512),
  /** The baseline combination; defaults to the engine's default values. Missing keys take defaults. */
  baseline: ComboSchema.optional(),
  /** Early termination: width of a tight interval relative to the value (hardware-specific noise floor). */
  noiseFloor: z.number().positive().max(1).default(0.02),
  earlyStop: z.boolean().default(true),
  /** Relative margin for topk5 (default 5%) and epsilon for regression (default 2%). */
  margin: z.number().min(0).max(10).optional(),
  epsilon: z.number().min(0).max(10).optional(),
  /** Use the result cache (default true). */
  useCache: z.boolean().default(true),
  /**
   * With distributed workers (`serve --redis`): only workers that announce this device (its name
   * or its fingerprint) measure the run's combinations. Without --redis the server refuses the run
   * unless this is its own device (apps/server/src/device.ts).
   */
  requireDevice: z.string().min(1).max(200).optional(),
  /**
   * Tier 3: let the measurement backend select approved registry kernels of the run's tenant as
   * extra candidates next to its tuned kernels (backends that run none ignore it). Such a run does
   * not use the result cache: what it measures depends on the registry's state, not only the key.
   */
  registryKernels: z.boolean().default(false),
  /** The experiment design (RUN_DESIGNS); default sequential. */
  design: z.enum(RUN_DESIGNS).optional(),
  /** Interleaved: rounds (each combination once per round); default 8 (the sign-flip test needs 7 to decide). */
  rounds: z.number().int().min(2).max(1000).optional(),
  /** Interleaved: seed of the round orders; default 1. */
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  /** Interleaved: the paired test; default sign-flip. */
  test: z.enum(ROUNDS_TESTS).optional(),
  slo: SloSchema.optional(),
  objective: ObjectiveSchema.optional(),
}).strict().superRefine(refineObjectives)
export type RunRequest = z.output<typeof RunRequestSchema>
export type RunRequestInput = z.input<typeof RunRequestSchema>

export const TuneRequestSchema: z.ZodObject<{
  runId: z.ZodString
  budget: typeof TuneBudgetSchema
  strategy: z.ZodDefault<z.ZodString>
  seed: z.ZodDefault<z.ZodNumber>
  insensitiveBelow: z.ZodDefault<z.ZodNumber>
  repetitions: z.ZodOptional<z.ZodNumber>
  keep: z.ZodOptional<z.ZodArray<z.ZodString>>
  slo: z.ZodOptional<typeof SloSchema>
  objective: z.ZodOptional<typeof ObjectiveSchema>
}, z.core.$strict> = z.object({
  runId: z.string().min(1).max(100),
  budget: TuneBudgetSchema,
  /** A search-strategy plugin name: bo (Bayesian optimisation, default), tpe, random, tuner-random. */
  strategy: z.string().min(1).max(100).default('bo'),
  /** Seed of the strategy's random stream. */
  seed: z.number().int().min(0).max(2 ** 31 - 1).default(1),
  /** Dimensions whose levels differ by less than this (relative) and not significantly are dropped. */
  insensitiveBelow: z.number().min(0).max(1).default(0.02),
  repetitions: z.number().int().min(2).max(100).optional(),
  /** Dimensions to search whatever the Tier 1 evidence says (an explicit override, recorded in the narrowing). */
  keep: z.array(z.string().regex(/^[a-z][a-z0-9_]*$/)).max(64).optional(),
  /** Latency objectives and the objective of the trials (see RunRequestSchema.slo); default the run's. */
  slo: SloSchema.optional(),
  objective: ObjectiveSchema.optional(),
}).strict().superRefine(refineObjectives)
export type TuneRequest = z.output<typeof TuneRequestSchema>
export type TuneRequestInput = z.input<typeof TuneRequestSchema>
