/**
 * What the routes return, as zod schemas: the OpenAPI document publishes them, and the dashboard's
 * types are generated from that document (apps/web/ui/api-types.gen.ts, `pnpm --filter
 * @kerneltune/web gen:api`). A `title` names the generated type. The stored rows keep their
 * schemas in core; a field core keeps open (a run's summary, a combination's comparison) is
 * spelled out here as the tuner and stats packages write it, and responses.test.ts parses real
 * responses with these schemas so that the two cannot drift apart unnoticed.
 */
import { ComboSchema, HardwareSpecSchema, QualityGateMethodSchema, RegistryEntrySchema, RegistryEventSchema, RoleSchema, RunComboSchema, RunModeSchema, RunSchema, TuneSessionSchema, TuneTrialSchema } from '@kerneltune/core'
import { z } from 'zod'

// A statistic that can be NaN or infinite (a zero baseline, one repetition) is null in JSON.
const Stat = z.number().nullable()
const Counts = z.object({ total: z.number(), measured: z.number(), failed: z.number(), cached: z.number(), stoppedEarly: z.number(), pending: z.number() })

export const ProxyLabelResponse = z.object({ of: z.string(), on: z.string(), engine: z.boolean(), device: z.boolean() }).meta({ title: 'ProxyLabel' })
export const MeasurementProxyResponse = z.object({ engine: z.boolean(), device: z.boolean(), runs: z.string().optional() }).meta({ title: 'MeasurementProxy' })
export const MeasuredByResponse = z.object({ simulated: z.boolean(), proxy: MeasurementProxyResponse.nullable() }).meta({ title: 'MeasuredBy' })
// One server launch an arm paid: why, whether it came up, and its phases in ms since spawn
// (serving's LaunchPhases: setupMs, listeningMs, modelLoadedMs, readyMs, warm-up; spawnedAt ISO).
const MeasurementLaunchResponse = z
  .object({ reason: z.string(), ok: z.boolean(), error: z.string().optional(), phases: z.record(z.string(), z.union([z.number(), z.string()])).optional() })
  .meta({ title: 'MeasurementLaunch' })
const NoiseEstimate = z.object({ n: z.number(), mean: z.number(), halfWidth: z.number(), relHalfWidth: z.number(), cv: z.number(), level: z.number() }).meta({ title: 'NoiseEstimate' })

/**
 * Latency objectives of a run that states them (issue 25; the fields of `kerneltune sweep --slo
 * --json`): the objectives as parsed, each candidate's feasibility with the objectives it missed,
 * goodput under them, the Pareto front (candidate indices) and the decision.
 */
export const ObjectivesResponse = z.object({
  objective: z.string(),
  slo: z.array(z.object({ name: z.string(), metric: z.enum(['ttft', 'tpot', 'itl', 'e2e']), stat: z.enum(['mean', 'p50', 'p90', 'p95', 'p99']), limitMs: z.number() })),
  candidates: z.array(z.object({
    index: z.number(),
    combo: ComboSchema.optional(),
    feasible: z.boolean(),
    violations: z.array(z.object({ metric: z.string(), limit: z.number(), value: z.number().nullable() })),
    goodput: z.object({ requestsPerSecond: z.number(), met: z.number() }).optional(),
    objectiveValue: z.number().nullable(),
  })),
  pareto: z.array(z.number()),
  paretoAxes: z.object({ throughput: z.string(), latency: z.string() }),
  decision: z.object({ winner: z.number().nullable(), defaultsFeasible: z.boolean().nullable(), reason: z.string(), test: z.string().optional() }).optional(),
  /** Why nothing was judged: the run's backend measured no requests (a run on the server backend does). */
  note: z.string().optional(),
}).meta({ title: 'Objectives' })

/** experiment's PairedComparison (paired.ts): one arm against the baseline of the same rounds. */
const PairedComparisonResponse = z.object({
  n: z.number(), improvement: Stat, interval: z.object({ low: Stat, high: Stat }), t: Stat, df: Stat, pValue: Stat,
  verdict: z.enum(['better', 'worse', 'indistinguishable']), test: z.enum(['sign-flip', 'paired', 'blocked']), trim: z.number(),
  pMethod: z.enum(['exact', 'resampled']).optional(), patterns: z.number().optional(), resamples: z.number().optional(), pFloor: z.number().optional(),
}).meta({ title: 'PairedComparison' })

const ExperimentCommon = {
  metric: z.string(), device: z.string(), worker: z.string().nullable(),
  winner: z.object({ index: z.number(), comboHash: z.string(), combo: ComboSchema, improvement: Stat, argv: z.array(z.string()), value: Stat.optional() }).nullable(),
  verdict: z.string(), recommendedArgv: z.array(z.string()),
}
/**
 * tuner's ExperimentSummary / InterleavedSummary (run/experiment-run.ts): the design that measured
 * the run, and for the interleaved design its rounds, the A/A check (the defaults measured twice
 * per round: a "winner" there is noise) and the replicate variance per combination.
 */
export const ExperimentResponse = z.discriminatedUnion('design', [
  z.object({ design: z.literal('sequential'), ...ExperimentCommon }),
  z.object({
    design: z.literal('interleaved'), ...ExperimentCommon,
    rounds: z.number(), partialRound: z.boolean(), seed: z.number(), test: z.string(),
    paired: z.record(z.string(), PairedComparisonResponse.nullable()),
    aa: z.object({ comparison: PairedComparisonResponse.nullable(), declaredWinner: z.boolean(), falseWinnerRate: Stat }),
    order: z.array(z.array(z.string())),
    replicateVariance: z.record(z.string(), Stat),
    // Issue 35: where the rounds' time went (absent in runs stored before).
    roundSeconds: z.array(z.number()).optional(),
    prepareSeconds: z.number().nullable().optional(),
    launches: z.record(z.string(), z.array(MeasurementLaunchResponse)).optional(),
  }),
]).meta({ title: 'Experiment' })

/** tuner's RunVerdict (run/verdict.ts): the run's one verdict, its reasons and every figure with its unit. */
export const VerdictResponse = z.object({
  kind: z.enum(['winner', 'keep-defaults', 'withheld', 'review', 'ungated', 'none']),
  index: z.number().nullable(),
  candidate: z.number().nullable(),
  decidedBy: z.enum(['objectives', 'design', 'gate', 'none']),
  headline: z.string(),
  reasons: z.array(z.string()),
  figures: z.array(z.object({ label: z.string(), text: z.string(), unit: z.string() })),
  best: z.object({ index: z.number(), quantity: z.string(), value: z.number(), unit: z.string() }).nullable(),
  power: z.object({ rounds: z.number(), test: z.string(), minRounds: z.number().nullable(), canDecide: z.boolean(), alpha: z.number(), text: z.string() }).optional(),
  aa: z.object({
    metric: z.string(), improvement: Stat, largestEffect: Stat, noiseDominates: z.boolean(), declaredWinner: z.boolean(), falseWinnerRate: Stat, text: z.string(),
    // Issue 36: the A/A interval against ±band (absent in verdicts stored before).
    outsideBand: z.boolean().optional(), band: z.number().optional(),
  }).optional(),
  // Issue 36: the verdict's command line (null when withheld; absent in verdicts stored before, and where no executor translated it).
  recommendedArgv: z.array(z.string()).nullable().optional(),
}).meta({ title: 'RunVerdict' })

/** tuner's RunSummary (run/summary.ts). */
export const RunSummaryResponse = z.object({
  metric: z.string(),
  backend: z.string(),
  simulated: z.boolean(),
  proxy: ProxyLabelResponse.nullable(),
  notMeasured: z.array(z.string()),
  cacheScope: z.enum(['tenant', 'shared']),
  devices: z.array(z.string()),
  durationMs: z.number(),
  counts: Counts,
  baseline: z.object({ index: z.number(), comboHash: z.string(), combo: ComboSchema, value: z.number() }).nullable(),
  winner: z.object({
    index: z.number(), comboHash: z.string(), combo: ComboSchema, value: z.number(), improvement: Stat,
    proxy: ProxyLabelResponse.nullable(), notMeasured: z.array(z.string()), notToldApart: z.record(z.string(), z.array(z.string())),
  }).nullable(),
  gate: z.object({ method: z.string(), status: z.string(), passed: z.boolean(), reasons: z.array(z.string()) }).nullable(),
  noise: z.object({ throughputTps: NoiseEstimate.optional(), latencyMs: NoiseEstimate }).nullable(),
  pareto: z.array(z.object({ index: z.number(), comboHash: z.string(), combo: ComboSchema, throughputTps: z.number().nullable(), latencyP50Ms: z.number() })),
  sensitivity: z.record(z.string(), z.unknown()),
  registryKernels: z.array(z.object({ id: z.string(), name: z.string(), kernelFamily: z.string(), selection: z.enum(['selected', 'excluded']), usedBy: z.array(z.number()), why: z.string() })).optional(),
  /** Present when the run states latency objectives (--slo / --objective). */
  objectives: ObjectivesResponse.optional(),
  /** Present when a design of @kerneltune/experiment measured the run (run create --design, kerneltune sweep). */
  experiment: ExperimentResponse.optional(),
  /** The run's one verdict: the dashboard's and `run show`'s result (derived on read for runs stored before it existed). */
  verdict: VerdictResponse.optional(),
  /** Dimensions the backend cannot exercise, held at their default value (not searched). */
  heldAtDefault: z.record(z.string(), z.string()).optional(),
  /** A run `kerneltune bench serve|capacity` stored: its combinations are loads. */
  bench: z.object({ command: z.string(), note: z.string() }).optional(),
  /** A bench capacity run's search (serving's CapacityResult; each point with its figures). */
  capacity: z.object({
    value: z.number().nullable(), low: z.number(), high: z.number().nullable(), unit: z.enum(['req/s', 'concurrency']),
    stop: z.enum(['converged', 'max', 'min', 'budget', 'deadline']),
    points: z.array(z.object({ level: z.number(), phase: z.enum(['bracket', 'bisect']), repeat: z.number(), feasible: z.boolean() }).catchall(z.unknown())),
  }).optional(),
}).meta({ title: 'RunSummary' })

/**
 * Set on a list row whose run is `running` but whose measuring process (a `kerneltune sweep`) has
 * not said it is alive for longer than the owner lease: the process died, and `kerneltune run
 * resume ID` continues the run.
 */
const Interrupted = z.boolean().optional()
export const RunResponse = RunSchema.extend({ summary: RunSummaryResponse.nullable(), interrupted: Interrupted }).meta({ title: 'Run' })
const RooflinePhaseResponse = z.object({ boundTps: z.number(), binding: z.enum(['memory', 'compute']), explanation: z.string() })
/** roofline-prediction.ts: the bounds of the run's model on its hardware, from specifications (a prediction, never a measurement). */
export const RooflinePredictionResponse = z.object({
  kind: z.literal('prediction'),
  source: z.string(),
  hardware: z.object({ name: z.string(), memBwGbs: z.number(), fp16Tflops: z.number() }),
  workload: z.object({ batch: z.number(), promptTokens: z.number(), kvBytesPerElement: z.number() }),
  decode: RooflinePhaseResponse,
  prefill: RooflinePhaseResponse,
  missing: z.array(z.string()),
}).meta({ title: 'RooflinePrediction' })
export const RunDetailResponse = RunResponse.extend({
  registryNotes: z.array(z.string()).optional(),
  /** Null when the run's model lacks what a bound needs. */
  roofline: RooflinePredictionResponse.nullable().optional(),
}).meta({ title: 'RunDetail' })

/** store's RunBrief, with what the run's backend declares about its numbers. */
export const RunBriefResponse = z.object({
  id: z.string(),
  status: RunSchema.shape.status,
  mode: RunModeSchema,
  backend: z.string(),
  qualityGate: QualityGateMethodSchema,
  progress: z.object({ done: z.number(), total: z.number() }),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  target: z.object({ engine: z.string(), engineVersion: z.string().optional(), model: z.object({ name: z.string().optional() }), hardware: z.object({ name: z.string().optional() }) }),
  winner: z.object({ value: z.number().nullable(), improvement: z.number().nullable() }).nullable(),
  measuredBy: MeasuredByResponse.nullable(),
  interrupted: Interrupted,
}).meta({ title: 'RunBrief' })

const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), total: z.number(), limit: z.number(), offset: z.number() })
/** view=brief gives RunBrief rows, the default full Run rows. */
export const RunListResponse = page(z.union([RunBriefResponse, RunResponse])).meta({ title: 'RunList' })

/** stats' Comparison (compare.ts) with the metric it compared, as the tuner stores it. */
export const ComparisonResponse = z.object({
  metric: z.string(), stoppedEarly: z.boolean().optional(),
  n: z.number(), baselineN: z.number(), trimmedMean: Stat, baselineTrimmedMean: Stat, delta: Stat, relativeDelta: Stat, improvement: Stat,
  test: z.enum(['welch', 'yuen']),
  welch: z.object({ t: Stat, df: Stat, pValue: Stat, difference: Stat, standardError: Stat }),
  interval: z.object({ center: Stat, low: Stat, high: Stat, halfWidth: Stat, level: z.number() }),
  cohensD: Stat, effect: z.string(), verdict: z.enum(['better', 'worse', 'indistinguishable']),
}).meta({ title: 'Comparison' })

export const RunComboResponse = RunComboSchema.extend({ comparison: ComparisonResponse.nullable(), proxy: ProxyLabelResponse.nullable() }).meta({ title: 'RunCombo' })
export const RunCombosResponse = z.object({ items: z.array(RunComboResponse) }).meta({ title: 'RunCombos' })

export const CancelResponse = z.object({ id: z.string(), status: z.string(), cancelled: z.boolean() }).meta({ title: 'CancelResult' })

export const DeploymentResponse = z.object({
  id: z.string(), tenant: z.string(), name: z.string(), engine: z.string(), engineVersion: z.string(),
  currentCombo: ComboSchema.nullable(), runId: z.string().nullable(), createdAt: z.string(), updatedAt: z.string(),
}).meta({ title: 'Deployment' })

const TranslationResponse = z.union([
  z.object({ ok: z.literal(true), engine: z.string(), version: z.string(), argv: z.array(z.string()), env: z.record(z.string(), z.string()), files: z.record(z.string(), z.string()), notes: z.array(z.string()) }),
  z.object({ ok: z.literal(false), engine: z.string(), version: z.string(), dimension: z.string(), value: z.string(), reason: z.string() }),
]).meta({ title: 'Translation' })

/** tuner's ApplyResult (run/apply.ts). */
export const ApplyResponse = z.object({
  runId: z.string(), engine: z.string(), combo: ComboSchema, comboHash: z.string(), gatePassed: z.boolean().nullable(),
  translation: TranslationResponse, deployment: DeploymentResponse.nullable(), warnings: z.array(z.string()),
}).meta({ title: 'ApplyResult' })

export const TuneSessionResponse = TuneSessionSchema.meta({ title: 'TuneSession' })
export const TuneSessionDetailResponse = TuneSessionSchema.extend({ trials: z.array(TuneTrialSchema.meta({ title: 'TuneTrial' })) }).meta({ title: 'TuneSessionDetail' })
export const ResumeResponse = z.object({ id: z.string(), status: z.string(), resumed: z.boolean(), trialsDone: z.number().optional() }).meta({ title: 'ResumeResult' })

export const RegistryEntryResponse = RegistryEntrySchema.meta({ title: 'RegistryEntry' })
export const RegistryListResponse = z.object({ items: z.array(RegistryEntryResponse) }).meta({ title: 'RegistryList' })
export const RegistryAuditResponse = z.object({ items: z.array(RegistryEventSchema.meta({ title: 'RegistryEvent' })) }).meta({ title: 'RegistryAudit' })

const CatalogCounts = z.object({
  mode: z.string(), total: z.number(), legal: z.number(), pruned: z.number(), refused: z.number(), byRule: z.record(z.string(), z.number()), refusedBy: z.record(z.string(), z.number()),
  /** False when the space was too large to classify: only `total` is known. */
  counted: z.boolean(),
}).meta({ title: 'CatalogCounts' })
const Legal = z.object({ hash: z.string(), combo: ComboSchema })

/** catalog's CatalogPreview (enumerate.ts), its combination lists capped by the route. */
export const CatalogPreviewResponse = z.object({
  catalog: z.object({ version: z.string(), hash: z.string() }),
  target: z.object({ hardware: z.string(), engine: z.string(), capability: z.record(z.string(), z.unknown()) }),
  mode: z.string(),
  dimensions: z.array(z.object({ id: z.string(), values: z.array(z.string()) })),
  counts: z.object({ exhaustive: CatalogCounts, quick: CatalogCounts }),
  engineRefusalsChecked: z.boolean(),
  rules: z.array(z.object({ id: z.string(), removes: z.number() }).catchall(z.unknown())),
  legal: z.array(Legal),
  pruned: z.array(Legal.extend({ rule: z.string(), violations: z.array(z.record(z.string(), z.unknown())) })),
  refused: z.array(Legal.extend({ refusal: z.record(z.string(), z.unknown()) })),
}).meta({ title: 'CatalogPreview' })

export const DeploymentListResponse = z.object({ items: z.array(DeploymentResponse) }).meta({ title: 'DeploymentList' })
export const CurrentComboResponse = z.object({ deploymentId: z.string(), combo: ComboSchema.nullable(), runId: z.string().nullable(), updatedAt: z.string() }).meta({ title: 'CurrentCombo' })
export const DriftResponse = z.object({
  deploymentId: z.string(), predictedTps: z.number().nullable(), measuredTps: z.number().nullable(), relative: z.number().nullable(),
  band: z.enum(['none', 'minor', 'significant', 'unknown']), at: z.string().nullable(),
}).meta({ title: 'Drift' })
/** A deployment served through `kerneltune gateway`: its settings, per-arm statistics and latest routing decisions (gateway null otherwise). */
export const GatewayStateResponse = z.object({
  deploymentId: z.string(),
  gateway: z.record(z.string(), z.unknown()).nullable(),
  arms: z.array(z.object({ arm: z.string(), combo: ComboSchema.nullable(), stats: z.record(z.string(), z.unknown()) }).meta({ title: 'GatewayArm' })),
  decisions: z.array(z.object({
    seq: z.number(), at: z.string(), arm: z.string(), reason: z.string(), ok: z.boolean(), met: z.boolean(), reward: z.number(),
    ttftMs: z.number().nullable(), tpotMs: z.number().nullable(),
  }).meta({ title: 'GatewayDecision' })),
  decisionCount: z.number(),
}).meta({ title: 'GatewayState' })

/** The choices a run request can name on this server (routes/options.ts). */
export const OptionsResponse = z.object({
  engines: z.array(z.object({ name: z.string(), displayName: z.string(), defaultVersion: z.string(), versions: z.array(z.string()) }).meta({ title: 'EngineOption' })),
  backends: z.array(z.object({
    name: z.string(),
    simulated: z.boolean(),
    proxy: MeasurementProxyResponse.nullable(),
    /** What its numbers are: a prediction, a stand-in for the engine or device, or a measurement. */
    label: z.enum(['simulated', 'proxy', 'measured']),
    description: z.string().nullable(),
  }).meta({ title: 'BackendOption' })),
  hardware: z.array(HardwareSpecSchema.meta({ title: 'HardwarePreset' })),
  modes: z.array(RunModeSchema),
  gates: z.array(QualityGateMethodSchema),
}).meta({ title: 'Options' })

/** An API token as the token routes show it (routes/tokens.ts `shown`): everything the store keeps but its hash. */
export const TokenResponse = z.object({
  id: z.string(), label: z.string().nullable(), role: RoleSchema, tenant: z.string(),
  status: z.enum(['active', 'revoked', 'expired']), createdAt: z.string(), expiresAt: z.string().nullable(), revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(), mintedBy: z.string().nullable(), actsFor: z.string().nullable(),
}).meta({ title: 'Token' })
/** A minted token: the only answer that carries its secret. */
export const TokenCreatedResponse = TokenResponse.extend({ token: z.string() }).meta({ title: 'TokenCreated' })
export const TokenListResponse = z.object({ items: z.array(TokenResponse) }).meta({ title: 'TokenList' })
/** store's TokenEvent: a mint or a revocation, who did it and when. */
export const TokenAuditResponse = z.object({
  items: z.array(z.object({
    id: z.string(), tokenId: z.string(), tenant: z.string(), action: z.enum(['create', 'revoke']), actor: z.string(),
    detail: z.record(z.string(), z.unknown()).nullable(), createdAt: z.string(),
  }).meta({ title: 'TokenEvent' })),
}).meta({ title: 'TokenAudit' })
