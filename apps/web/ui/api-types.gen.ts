// Generated from the server's OpenAPI document by apps/server/src/api-types.ts: do not edit.
// After changing a route or its schemas, run `pnpm --filter @kerneltune/web gen:api`.

export type ProxyLabel = {
  of: string
  on: string
  engine: boolean
  device: boolean
}

export type NoiseEstimate = {
  n: number
  mean: number
  halfWidth: number
  relHalfWidth: number
  cv: number
  level: number
}

export type Objectives = {
  objective: string
  slo: Array<{
    name: string
    metric: 'ttft' | 'tpot' | 'itl' | 'e2e'
    stat: 'mean' | 'p50' | 'p90' | 'p95' | 'p99'
    limitMs: number
  }>
  candidates: Array<{
    index: number
    combo?: Record<string, string>
    feasible: boolean
    violations: Array<{
      metric: string
      limit: number
      value: number | null
    }>
    goodput?: {
      requestsPerSecond: number
      met: number
    }
    objectiveValue: number | null
  }>
  pareto: number[]
  paretoAxes: {
    throughput: string
    latency: string
  }
  decision?: {
    winner: number | null
    defaultsFeasible: boolean | null
    reason: string
    test?: string
  }
  note?: string
}

export type PairedComparison = {
  n: number
  improvement: number | null
  interval: {
    low: number | null
    high: number | null
  }
  t: number | null
  df: number | null
  pValue: number | null
  verdict: 'better' | 'worse' | 'indistinguishable'
  test: 'sign-flip' | 'paired' | 'blocked'
  trim: number
  pMethod?: 'exact' | 'resampled'
  patterns?: number
  resamples?: number
  pFloor?: number
}

export type MeasurementLaunch = {
  reason: string
  ok: boolean
  error?: string
  phases?: Record<string, number | string>
}

export type Experiment = {
  design: 'sequential'
  metric: string
  device: string
  worker: string | null
  winner: {
    index: number
    comboHash: string
    combo: Record<string, string>
    improvement: number | null
    argv: string[]
    value?: number | null
  } | null
  verdict: string
  recommendedArgv: string[]
} | {
  design: 'interleaved'
  metric: string
  device: string
  worker: string | null
  winner: {
    index: number
    comboHash: string
    combo: Record<string, string>
    improvement: number | null
    argv: string[]
    value?: number | null
  } | null
  verdict: string
  recommendedArgv: string[]
  rounds: number
  partialRound: boolean
  seed: number
  test: string
  paired: Record<string, PairedComparison | null>
  aa: {
    comparison: PairedComparison | null
    declaredWinner: boolean
    falseWinnerRate: number | null
  }
  order: Array<string[]>
  replicateVariance: Record<string, number | null>
  roundSeconds?: number[]
  prepareSeconds?: number | null
  launches?: Record<string, MeasurementLaunch[]>
}

export type RunVerdict = {
  kind: 'winner' | 'keep-defaults' | 'withheld' | 'review' | 'ungated' | 'none'
  index: number | null
  candidate: number | null
  decidedBy: 'objectives' | 'design' | 'gate' | 'none'
  headline: string
  reasons: string[]
  figures: Array<{
    label: string
    text: string
    unit: string
  }>
  best: {
    index: number
    quantity: string
    value: number
    unit: string
  } | null
  power?: {
    rounds: number
    test: string
    minRounds: number | null
    canDecide: boolean
    alpha: number
    text: string
  }
  aa?: {
    metric: string
    improvement: number | null
    largestEffect: number | null
    noiseDominates: boolean
    declaredWinner: boolean
    falseWinnerRate: number | null
    text: string
    outsideBand?: boolean
    band?: number
  }
  recommendedArgv?: string[] | null
}

export type RunSummary = {
  metric: string
  backend: string
  simulated: boolean
  proxy: ProxyLabel | null
  notMeasured: string[]
  cacheScope: 'tenant' | 'shared'
  devices: string[]
  durationMs: number
  counts: {
    total: number
    measured: number
    failed: number
    cached: number
    stoppedEarly: number
    pending: number
  }
  baseline: {
    index: number
    comboHash: string
    combo: Record<string, string>
    value: number
  } | null
  winner: {
    index: number
    comboHash: string
    combo: Record<string, string>
    value: number
    improvement: number | null
    proxy: ProxyLabel | null
    notMeasured: string[]
    notToldApart: Record<string, string[]>
  } | null
  gate: {
    method: string
    status: string
    passed: boolean
    reasons: string[]
  } | null
  noise: {
    throughputTps?: NoiseEstimate
    latencyMs: NoiseEstimate
  } | null
  pareto: Array<{
    index: number
    comboHash: string
    combo: Record<string, string>
    throughputTps: number | null
    latencyP50Ms: number
  }>
  sensitivity: Record<string, unknown>
  registryKernels?: Array<{
    id: string
    name: string
    kernelFamily: string
    selection: 'selected' | 'excluded'
    usedBy: number[]
    why: string
  }>
  objectives?: Objectives
  experiment?: Experiment
  verdict?: RunVerdict
  heldAtDefault?: Record<string, string>
  bench?: {
    command: string
    note: string
  }
  capacity?: {
    value: number | null
    low: number
    high: number | null
    unit: 'req/s' | 'concurrency'
    stop: 'converged' | 'max' | 'min' | 'budget' | 'deadline'
    points: Array<{
      level: number
      phase: 'bracket' | 'bisect'
      repeat: number
      feasible: boolean
      [key: string]: unknown
    }>
  }
}

export type Run = {
  id: string
  tenant: string
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
  mode: 'exhaustive' | 'quick'
  target: {
    model: {
      name?: string
      architecture?: string
      paramsB: number
      activeParamsB?: number
      hiddenDim?: number
      intermediateDim?: number
      numLayers?: number
      numHeads?: number
      numKvHeads?: number
      headDim?: number
      vocabSize?: number
      contextLength?: number
      numExperts?: number
      expertsPerToken?: number
      tieEmbeddings?: boolean
      quant: unknown
    }
    hardware: {
      id?: string
      name: string
      vendor: 'nvidia' | 'amd' | 'apple' | 'intel' | 'cpu' | 'other'
      kind: 'gpu' | 'cpu' | 'soc' | 'accelerator'
      memBwGbs: number
      fp16Tflops: number
      smCount?: number
      l2CacheMb?: number
      memoryGb?: number
      computeCapability?: string
      architecture?: string
      tdpWatts?: number
      unifiedMemory: boolean
      sources: string[]
    }
    engine: string
    engineVersion: string
    workload: {
      batch: number
      phase: 'decode' | 'prefill'
      promptTokens: number
      generatedTokens: number
      contextLength?: number
      cudaGraphs: boolean
    }
    options?: Record<string, unknown>
    modelPath?: string
  }
  snapshotHash: string
  catalogVersion: string
  qualityGate: 'topk5' | 'pareto' | 'regression' | 'manual'
  backend: string
  repetitions: number
  progress: {
    done: number
    total: number
  }
  summary: RunSummary | null
  error: string | null
  createdAt: string
  updatedAt: string
  deletedAt: string | null
  interrupted?: boolean
}

export type MeasurementProxy = {
  engine: boolean
  device: boolean
  runs?: string
}

export type MeasuredBy = {
  simulated: boolean
  proxy: MeasurementProxy | null
}

export type RunBrief = {
  id: string
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
  mode: 'exhaustive' | 'quick'
  backend: string
  qualityGate: 'topk5' | 'pareto' | 'regression' | 'manual'
  progress: {
    done: number
    total: number
  }
  error: string | null
  createdAt: string
  updatedAt: string
  target: {
    engine: string
    engineVersion?: string
    model: {
      name?: string
    }
    hardware: {
      name?: string
    }
  }
  winner: {
    value: number | null
    improvement: number | null
  } | null
  measuredBy: MeasuredBy | null
  interrupted?: boolean
}

export type RunList = {
  items: Array<RunBrief | Run>
  total: number
  limit: number
  offset: number
}

export type RooflinePrediction = {
  kind: 'prediction'
  source: string
  hardware: {
    name: string
    memBwGbs: number
    fp16Tflops: number
  }
  workload: {
    batch: number
    promptTokens: number
    kvBytesPerElement: number
  }
  decode: {
    boundTps: number
    binding: 'memory' | 'compute'
    explanation: string
  }
  prefill: {
    boundTps: number
    binding: 'memory' | 'compute'
    explanation: string
  }
  missing: string[]
}

export type RunDetail = {
  id: string
  tenant: string
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
  mode: 'exhaustive' | 'quick'
  target: {
    model: {
      name?: string
      architecture?: string
      paramsB: number
      activeParamsB?: number
      hiddenDim?: number
      intermediateDim?: number
      numLayers?: number
      numHeads?: number
      numKvHeads?: number
      headDim?: number
      vocabSize?: number
      contextLength?: number
      numExperts?: number
      expertsPerToken?: number
      tieEmbeddings?: boolean
      quant: unknown
    }
    hardware: {
      id?: string
      name: string
      vendor: 'nvidia' | 'amd' | 'apple' | 'intel' | 'cpu' | 'other'
      kind: 'gpu' | 'cpu' | 'soc' | 'accelerator'
      memBwGbs: number
      fp16Tflops: number
      smCount?: number
      l2CacheMb?: number
      memoryGb?: number
      computeCapability?: string
      architecture?: string
      tdpWatts?: number
      unifiedMemory: boolean
      sources: string[]
    }
    engine: string
    engineVersion: string
    workload: {
      batch: number
      phase: 'decode' | 'prefill'
      promptTokens: number
      generatedTokens: number
      contextLength?: number
      cudaGraphs: boolean
    }
    options?: Record<string, unknown>
    modelPath?: string
  }
  snapshotHash: string
  catalogVersion: string
  qualityGate: 'topk5' | 'pareto' | 'regression' | 'manual'
  backend: string
  repetitions: number
  progress: {
    done: number
    total: number
  }
  summary: RunSummary | null
  error: string | null
  createdAt: string
  updatedAt: string
  deletedAt: string | null
  interrupted?: boolean
  registryNotes?: string[]
  roofline?: RooflinePrediction | null
}

export type Comparison = {
  metric: string
  stoppedEarly?: boolean
  n: number
  baselineN: number
  trimmedMean: number | null
  baselineTrimmedMean: number | null
  delta: number | null
  relativeDelta: number | null
  improvement: number | null
  test: 'welch' | 'yuen'
  welch: {
    t: number | null
    df: number | null
    pValue: number | null
    difference: number | null
    standardError: number | null
  }
  interval: {
    center: number | null
    low: number | null
    high: number | null
    halfWidth: number | null
    level: number
  }
  cohensD: number | null
  effect: string
  verdict: 'better' | 'worse' | 'indistinguishable'
}

export type RunCombo = {
  runId: string
  index: number
  comboHash: string
  combo: Record<string, string>
  status: 'pending' | 'measured' | 'failed' | 'skipped'
  simulated: boolean
  cached: boolean
  isBaseline: boolean
  repetitions: Array<{
    latencyMs: number
    throughputTps?: number
    prefillTps?: number
    decodeTps?: number
    ttftMs?: number
    peakMemoryBytes?: number
    breakdown?: Record<string, number>
    serving?: {
      durationS: number
      requests: Array<{
        ok: boolean
        startMs: number
        e2eMs: number
        ttftMs?: number
        outputTokens?: number
        itlMs: number[]
        error?: string
      }>
    }
  }>
  metrics: {
    throughputTps?: number
    latencyP50Ms: number
    latencyP95Ms: number
    latencyP99Ms: number
    peakMemoryBytes?: number
    breakdown?: Record<string, number>
  } | null
  comparison: Comparison | null
  gate: {
    passed: boolean
    reasons: string[]
  } | null
  error: string | null
  kernels?: Array<{
    id: string
    name: string
    kernelFamily: string
    selection: 'selected' | 'excluded'
    used: boolean
    why: string
  }>
  proxy: ProxyLabel | null
}

export type RunCombos = {
  items: RunCombo[]
}

export type CancelResult = {
  id: string
  status: string
  cancelled: boolean
}

export type Translation = {
  ok: true
  engine: string
  version: string
  argv: string[]
  env: Record<string, string>
  files: Record<string, string>
  notes: string[]
} | {
  ok: false
  engine: string
  version: string
  dimension: string
  value: string
  reason: string
}

export type Deployment = {
  id: string
  tenant: string
  name: string
  engine: string
  engineVersion: string
  currentCombo: Record<string, string> | null
  runId: string | null
  createdAt: string
  updatedAt: string
}

export type ApplyResult = {
  runId: string
  engine: string
  combo: Record<string, string>
  comboHash: string
  gatePassed: boolean | null
  translation: Translation
  deployment: Deployment | null
  warnings: string[]
}

export type TuneSession = {
  id: string
  tenant: string
  runId: string
  status: 'running' | 'paused' | 'completed' | 'cancelled' | 'failed'
  strategy: string
  budget: {
    trials?: number
    minutes?: number
  }
  narrowing: Record<string, unknown>
  optimizerState: unknown
  trialsDone: number
  elapsedMs: number
  best: {
    trial: number
    config: Record<string, string>
    value: number
  } | null
  error: string | null
  createdAt: string
  updatedAt: string
}

export type TuneTrial = {
  sessionId: string
  index: number
  config: Record<string, string>
  outcome: 'ok' | 'infeasible' | 'failed'
  value: number | null
  metrics: Record<string, unknown> | null
  createdAt: string
}

export type TuneSessionDetail = {
  id: string
  tenant: string
  runId: string
  status: 'running' | 'paused' | 'completed' | 'cancelled' | 'failed'
  strategy: string
  budget: {
    trials?: number
    minutes?: number
  }
  narrowing: Record<string, unknown>
  optimizerState: unknown
  trialsDone: number
  elapsedMs: number
  best: {
    trial: number
    config: Record<string, string>
    value: number
  } | null
  error: string | null
  createdAt: string
  updatedAt: string
  trials: TuneTrial[]
}

export type ResumeResult = {
  id: string
  status: string
  resumed: boolean
  trialsDone?: number
}

export type RegistryEntry = {
  id: string
  tenant: string
  name: string
  kernelFamily: string
  provider: string
  source: string
  status: 'proposed' | 'approved' | 'deprecated'
  metadata: Record<string, unknown>
  createdAt: string
  updatedAt: string
}

export type RegistryList = {
  items: RegistryEntry[]
}

export type RegistryEvent = {
  id: string
  entryId: string
  action: 'submit' | 'approve' | 'deprecate'
  actor: string
  reason: string | null
  createdAt: string
}

export type RegistryAudit = {
  items: RegistryEvent[]
}

export type CatalogCounts = {
  mode: string
  total: number
  legal: number
  pruned: number
  refused: number
  byRule: Record<string, number>
  refusedBy: Record<string, number>
  counted: boolean
}

export type CatalogPreview = {
  catalog: {
    version: string
    hash: string
  }
  target: {
    hardware: string
    engine: string
    capability: Record<string, unknown>
  }
  mode: string
  dimensions: Array<{
    id: string
    values: string[]
  }>
  counts: {
    exhaustive: CatalogCounts
    quick: CatalogCounts
  }
  engineRefusalsChecked: boolean
  rules: Array<{
    id: string
    removes: number
    [key: string]: unknown
  }>
  legal: Array<{
    hash: string
    combo: Record<string, string>
  }>
  pruned: Array<{
    hash: string
    combo: Record<string, string>
    rule: string
    violations: Array<Record<string, unknown>>
  }>
  refused: Array<{
    hash: string
    combo: Record<string, string>
    refusal: Record<string, unknown>
  }>
}

export type DeploymentList = {
  items: Deployment[]
}

export type CurrentCombo = {
  deploymentId: string
  combo: Record<string, string> | null
  runId: string | null
  updatedAt: string
}

export type Drift = {
  deploymentId: string
  predictedTps: number | null
  measuredTps: number | null
  relative: number | null
  band: 'none' | 'minor' | 'significant' | 'unknown'
  at: string | null
}

export type GatewayArm = {
  arm: string
  combo: Record<string, string> | null
  stats: Record<string, unknown>
}

export type GatewayDecision = {
  seq: number
  at: string
  arm: string
  reason: string
  ok: boolean
  met: boolean
  reward: number
  ttftMs: number | null
  tpotMs: number | null
}

export type GatewayState = {
  deploymentId: string
  gateway: Record<string, unknown> | null
  arms: GatewayArm[]
  decisions: GatewayDecision[]
  decisionCount: number
}

export type EngineOption = {
  name: string
  displayName: string
  defaultVersion: string
  versions: string[]
}

export type BackendOption = {
  name: string
  simulated: boolean
  proxy: MeasurementProxy | null
  label: 'simulated' | 'proxy' | 'measured'
  description: string | null
}

export type HardwarePreset = {
  id?: string
  name: string
  vendor: 'nvidia' | 'amd' | 'apple' | 'intel' | 'cpu' | 'other'
  kind: 'gpu' | 'cpu' | 'soc' | 'accelerator'
  memBwGbs: number
  fp16Tflops: number
  smCount?: number
  l2CacheMb?: number
  memoryGb?: number
  computeCapability?: string
  architecture?: string
  tdpWatts?: number
  unifiedMemory: boolean
  sources: string[]
}

export type Options = {
  engines: EngineOption[]
  backends: BackendOption[]
  hardware: HardwarePreset[]
  modes: Array<'exhaustive' | 'quick'>
  gates: Array<'topk5' | 'pareto' | 'regression' | 'manual'>
}

export type TokenCreated = {
  id: string
  label: string | null
  role: 'viewer' | 'operator' | 'approver' | 'admin' | 'superadmin'
  tenant: string
  status: 'active' | 'revoked' | 'expired'
  createdAt: string
  expiresAt: string | null
  revokedAt: string | null
  lastUsedAt: string | null
  mintedBy: string | null
  actsFor: string | null
  token: string
}

export type Token = {
  id: string
  label: string | null
  role: 'viewer' | 'operator' | 'approver' | 'admin' | 'superadmin'
  tenant: string
  status: 'active' | 'revoked' | 'expired'
  createdAt: string
  expiresAt: string | null
  revokedAt: string | null
  lastUsedAt: string | null
  mintedBy: string | null
  actsFor: string | null
}

export type TokenList = {
  items: Token[]
}

export type TokenEvent = {
  id: string
  tokenId: string
  tenant: string
  action: 'create' | 'revoke'
  actor: string
  detail: Record<string, unknown> | null
  createdAt: string
}

export type TokenAudit = {
  items: TokenEvent[]
}

/** Each route's success response, by 'METHOD /path' under /api/v1/kernels. */
export interface ApiResponses {
  'POST /runs': Run
  'GET /runs': RunList
  'GET /runs/{id}': RunDetail
  'GET /runs/{id}/combos': RunCombos
  'POST /runs/{id}/cancel': CancelResult
  'POST /runs/{id}/apply': ApplyResult
  'POST /tune': TuneSession
  'GET /tune/{id}': TuneSessionDetail
  'POST /tune/{id}/cancel': CancelResult
  'POST /tune/{id}/resume': ResumeResult
  'GET /registry': RegistryList
  'POST /registry': RegistryEntry
  'GET /registry/{id}/audit': RegistryAudit
  'POST /registry/{id}/approve': RegistryEntry
  'POST /registry/{id}/deprecate': RegistryEntry
  'GET /catalog/preview': CatalogPreview
  'POST /deployments': Deployment
  'GET /deployments-recent': DeploymentList
  'GET /deployments/{id}/current-combo': CurrentCombo
  'GET /deployments/{id}/drift': Drift
  'GET /deployments/{id}/gateway': GatewayState
  'GET /options': Options
  'POST /tokens': TokenCreated
  'GET /tokens': TokenList
  'GET /tokens/audit': TokenAudit
  'DELETE /tokens/{id}': Token
}

/** Each route's request body (as sent: before defaults), by 'METHOD /path'. */
export interface ApiBodies {
  'POST /runs': {
    model: {
      name?: string
      architecture?: string
      paramsB: number
      activeParamsB?: number
      hiddenDim?: number
      intermediateDim?: number
      numLayers?: number
      numHeads?: number
      numKvHeads?: number
      headDim?: number
      vocabSize?: number
      contextLength?: number
      numExperts?: number
      expertsPerToken?: number
      tieEmbeddings?: boolean
      quant?: string
    }
    hardware: {
      id?: string
      name: string
      vendor?: 'nvidia' | 'amd' | 'apple' | 'intel' | 'cpu' | 'other'
      kind?: 'gpu' | 'cpu' | 'soc' | 'accelerator'
      memBwGbs: number
      fp16Tflops: number
      smCount?: number
      l2CacheMb?: number
      memoryGb?: number
      computeCapability?: string
      architecture?: string
      tdpWatts?: number
      unifiedMemory?: boolean
      sources?: string[]
    }
    engine: string
    engineVersion?: string
    workload?: {
      batch?: number
      phase?: 'decode' | 'prefill'
      promptTokens?: number
      generatedTokens?: number
      contextLength?: number
      cudaGraphs?: boolean
    }
    mode?: 'exhaustive' | 'quick'
    qualityGate?: 'topk5' | 'pareto' | 'regression' | 'manual'
    backend?: string
    modelPath?: string
    repetitions?: number
    warmups?: number
    metric?: 'throughputTps' | 'latencyMs'
    restrict?: Record<string, string[]>
    maxCombos?: number
    baseline?: Record<string, string>
    noiseFloor?: number
    earlyStop?: boolean
    margin?: number
    epsilon?: number
    useCache?: boolean
    requireDevice?: string
    registryKernels?: boolean
    design?: 'sequential' | 'interleaved'
    rounds?: number
    seed?: number
    test?: 'sign-flip' | 'paired' | 'blocked'
    slo?: Record<string, number>
    objective?: string
    onnxModel?: {
      params: string
      weights?: 'q4' | 'fp16' | 'fp32'
      vocabSize?: number
    }
  }
  'POST /runs/{id}/apply': {
    deploymentId?: string
    force?: boolean
    model?: string
  } | undefined
  'POST /tune': {
    runId: string
    budget: {
      trials?: number
      minutes?: number
    }
    strategy?: string
    seed?: number
    insensitiveBelow?: number
    repetitions?: number
    keep?: string[]
    slo?: Record<string, number>
    objective?: string
  }
  'POST /registry': {
    name: string
    kernelFamily: string
    provider: string
    source: string
    metadata?: Record<string, unknown>
  }
  'POST /registry/{id}/approve': {
    reason?: string
  } | undefined
  'POST /registry/{id}/deprecate': {
    reason?: string
  } | undefined
  'POST /deployments': {
    name: string
    engine: string
    engineVersion: string
  }
  'POST /cache/flush': {
    engine?: string
    tenant?: string
    allTenants?: true
  } | undefined
  'POST /tokens': {
    role: 'viewer' | 'operator' | 'approver' | 'admin' | 'superadmin'
    tenant?: string
    label?: string
    actsFor?: string
    expiresIn?: string
    expiresAt?: string
  }
  'DELETE /tokens/{id}': {
    reason?: string
  } | undefined
  'POST /metrics/client': {
    metric: 'landing_ttfs_seconds'
    value: number
  }
}
