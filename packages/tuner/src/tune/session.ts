/**
 * Tier 2 tune sessions. `startTune` narrows the space with the Tier 1 evidence and creates the
 * session; `runTune` runs its loop: ask the strategy for a configuration, measure it, tell the
 * strategy, and store the trial together with the strategy's state in one transaction. A
 * session killed at any point resumes from the last stored trial: the trial in flight is measured
 * again and stored once (the store refuses a second trial with the same index).
 */
import type { Catalog } from '@kerneltune/catalog'
import { isKerneltuneError, KerneltuneError, parseWith, type Combo, type Registry, type Run, type SearchConfig, type SearchSpaceDefinition, type Searcher, type TuneSession } from '@kerneltune/core'
import { objectivesRecord } from '@kerneltune/serving'
import { trimmedMean } from '@kerneltune/stats'
import type { Store } from '@kerneltune/store'
import { withRunBackend } from '../run/backend.ts'
import { runOptions } from '../run/create.ts'
import type { TuneEvent } from '../events.ts'
import { TuneRequestSchema, type TargetMetric, type TuneRequestInput } from '../request.ts'
import { higherIsBetter, samplesOf } from '../run/metrics.ts'
import type { RunSummary } from '../run/summary.ts'
import { narrow, type Narrowing } from './narrow.ts'
import { classifyFailure } from './failure.ts'
import { assessRepetitions, storedObjectives } from '../run/objectives.ts'

export interface TuneDeps {
  readonly registry: Registry
  readonly catalog: Catalog
  readonly tenant: string
}

interface SessionPlan extends Narrowing {
  keptByRequest: string[]
  engine: string
  metric: TargetMetric
  repetitions: number
  seed: number
  seedPoints: SearchConfig[]
  /** The median replicate variance of the run's interleaved rounds (variance of a log ratio: relative), when the run was interleaved. */
  replicateRelVariance?: number
  /**
   * Latency objectives (name → ms) and the objective trials are valued by (the request's, else the
   * run's): a trial's value is the objective (goodput, ...), and one that misses an objective is
   * infeasible. Absent: trials are valued by `metric`.
   */
  slo?: Record<string, number>
  objective?: string
}

interface OptimizerState {
  searcher: unknown
  /**
   * Configurations of the current q-batch that the strategy suggested but was not yet told about.
   * A strategy never suggests a configuration twice, so a session stopped mid-batch (a pause, a
   * crash between two stored trials) measures these first when it resumes, instead of losing them.
   * With BullMQ workers, their trial jobs (same ids) may even be finished already.
   */
  inFlight?: SearchConfig[]
}

function space(plan: SessionPlan, run: Run, catalog: Catalog): SearchSpaceDefinition {
  const fixed = Object.fromEntries(Object.entries(plan.dropped).map(([d, x]) => [d, x.fixedAt]))
  const target = { hardware: run.target.hardware, engine: run.target.engine }
  return {
    params: Object.entries(plan.kept).map(([name, values]) => ({ name, type: 'categorical' as const, values })),
    isValid: (c) => catalog.check({ ...fixed, ...(c as Record<string, string>) }, target).legal,
  }
}

const fullCombo = (plan: SessionPlan, config: SearchConfig): Combo => ({
  ...Object.fromEntries(Object.entries(plan.dropped).map(([d, x]) => [d, x.fixedAt])),
  ...Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)])),
})

export async function startTune(store: Store, input: TuneRequestInput | unknown, deps: TuneDeps): Promise<TuneSession> {
  const req = parseWith(TuneRequestSchema, input, 'tune request')
  const run = await store.runs.require(deps.tenant, req.runId)
  const summary = run.summary as RunSummary | null
  if (run.status !== 'succeeded' || !summary) {
    throw new KerneltuneError('CONFLICT', `run ${run.id} is ${run.status}; a tune session is seeded from a succeeded Tier 1 run`)
  }
  const strategy = deps.registry.get('search-strategy', req.strategy)
  if (!strategy.restore) throw new KerneltuneError('UNSUPPORTED', `search strategy ${strategy.name} cannot restore its state, so its sessions could not resume; pick another`)
  const measured = (await store.runs.combos(run.id)).filter((c) => c.status === 'measured')
  const n = narrow(measured, summary.metric, summary.baseline?.combo, req.insensitiveBelow)
  for (const dim of req.keep ?? []) {
    const d = n.dropped[dim]
    if (!d) continue
    n.kept[dim] = d.evidence.levels
    delete n.dropped[dim]
  }
  if (Object.keys(n.kept).length === 0) {
    const why = Object.entries(n.dropped).map(([d, x]) => `${d}: ${x.evidence.reason}`).join('; ')
    throw new KerneltuneError('INVALID_INPUT', `run ${run.id} found no dimension that changes ${summary.metric}, so there is nothing to search (${why}); its winner is the answer, or search some anyway with keep`)
  }
  // The kept dimensions search every catalog level, not only those Tier 1 swept.
  for (const dim of Object.keys(n.kept)) n.kept[dim] = deps.catalog.dimension(dim)?.values.map((v) => v.id) ?? n.kept[dim]!
  // Tier 1's Pareto combinations seed the search, each as its levels of the kept dimensions. One
  // that leaves a kept dimension unset (the defaults' combination: a missing key means the engine's
  // default, which is no level of the space) cannot be told to the strategy and is left out; it was
  // measured in Tier 1 already. It used to be seeded as {} and failed the session whenever the
  // defaults were on the run's Pareto front.
  const keptDims = Object.keys(n.kept)
  const seedPoints = summary.pareto
    .filter((p) => keptDims.every((d) => p.combo[d] !== undefined))
    .map((p) => Object.fromEntries(keptDims.map((d) => [d, p.combo[d]!])))
  // An interleaved run measured each combination's replicate noise: half the variance of a log ratio of two measurements is one measurement's relative variance.
  const rv = Object.values((summary as { experiment?: { replicateVariance?: Record<string, number> } }).experiment?.replicateVariance ?? {}).sort((a, b) => a - b)
  const replicateRelVariance = rv.length ? rv[Math.floor(rv.length / 2)]! / 2 : undefined
  const runOpts = runOptions(run)
  const stated = req.slo !== undefined || req.objective !== undefined ? { slo: req.slo, objective: req.objective } : { slo: runOpts.slo, objective: runOpts.objective }
  const objectives = storedObjectives(stated)
  const plan: SessionPlan = {
    ...n, keptByRequest: req.keep ?? [], engine: run.target.engine, metric: summary.metric as TargetMetric, repetitions: req.repetitions ?? run.repetitions, seed: req.seed, seedPoints,
    ...(replicateRelVariance !== undefined ? { replicateRelVariance } : {}),
    // Stored as parsed back to name → ms with the objective resolved (goodput when only objectives were stated).
    ...objectivesRecord(objectives),
  }
  return store.tune.create({ tenant: deps.tenant, runId: run.id, strategy: req.strategy, budget: req.budget, narrowing: plan as unknown as Record<string, unknown>, optimizerState: null })
}

export interface RunTuneDeps {
  readonly store: Store
  readonly registry: Registry
  readonly catalog: Catalog
  /** Abort to stop: with reason 'pause' the session is paused (resumable), otherwise cancelled. */
  readonly signal?: AbortSignal
  readonly onEvent?: (e: TuneEvent) => void
  readonly observer?: { trial?(outcome: 'ok' | 'infeasible' | 'failed'): void }
  /**
   * Measures a q-batch of trials elsewhere (the server's BullMQ workers), in the order given;
   * rejects only when the signal aborted. Default: measured here, one after another.
   */
  readonly measureTrials?: MeasureTrials
  /** Configurations asked of the strategy at once (its q-batch); default 1. */
  readonly batchSize?: number
}

export interface TrialMeasurement { value: number | null; metrics: Record<string, unknown> | null }

/**
 * failed: the combination did not run (its metrics carry the failure); infeasible: it ran but
 * missed a latency objective (its metrics carry the violations); ok otherwise.
 */
export function trialOutcome(t: TrialMeasurement): 'ok' | 'infeasible' | 'failed' {
  const m = t.metrics as { failure?: unknown; feasible?: unknown } | null
  if (m?.failure !== undefined || (t.value === null && m?.feasible === undefined)) return 'failed'
  if (m?.feasible === false || t.value === null) return 'infeasible'
  return 'ok'
}

/**
 * The variance of a trial's value (the mean of its repetitions), the noise the strategy's model is
 * told: the repetitions' own spread, floored by the replicate noise the run's interleaved rounds
 * measured (relative variance of one measurement, scaled to the value), so a trial whose few
 * repetitions happened to agree is not taken for exact.
 */
export function meanVariance(samples: readonly number[], value: number, replicateRelVariance?: number): number | undefined {
  const n = samples.length
  if (n === 0 || !Number.isFinite(value)) return undefined
  const m = samples.reduce((a, b) => a + b, 0) / n
  const own = n > 1 ? samples.reduce((a, b) => a + (b - m) ** 2, 0) / (n - 1) / n : 0
  const floor = replicateRelVariance === undefined ? 0 : (replicateRelVariance * value * value) / n
  const v = Math.max(own, floor)
  return n > 1 || floor > 0 ? v : undefined
}
export type MeasureTrials = (sessionId: string, trials: readonly { index: number; combo: Combo }[], signal?: AbortSignal) => Promise<TrialMeasurement[]>

/**
 * Measures one trial configuration of a session with the run's backend: what runTune does per
 * trial, and what a distributed worker does with a trial job. Throws only when the signal aborted.
 */
export async function measureTrial(sessionId: string, combo: Combo, deps: { store: Store; registry: Registry; signal?: AbortSignal }): Promise<TrialMeasurement> {
  const session = await deps.store.tune.require(null, sessionId)
  const run = await deps.store.runs.require(null, session.runId)
  const plan = session.narrowing as unknown as SessionPlan
  // A backend made for the run (a kept server pool) is closed after the trial.
  return withRunBackend(deps.registry, run, async (backend) => {
    const signal = deps.signal
    try {
      const r = await backend.measure({ combo, engine: run.target.engine, hardware: run.target.hardware, model: run.target.model, workload: run.target.workload, repetitions: plan.repetitions, warmups: 1, ...(signal ? { signal } : {}) })
      const smp = samplesOf(r.repetitions, plan.metric)
      const common = { simulated: r.simulated || backend.simulated, device: r.device }
      const o = storedObjectives(plan)
      const a = o && assessRepetitions(r.repetitions, o)
      if (o && a) {
        // Valued by the objective over the trial's pooled requests; its variance is not known from one pool.
        return { value: a.objectiveValue, metrics: { ...common, objective: o.objective.name, feasible: a.feasible, violations: a.violations, ...(a.goodput ? { goodput: a.goodput } : {}), metric: smp.metric, samples: smp.values } }
      }
      const value = trimmedMean(smp.values)
      return { value, metrics: { metric: smp.metric, samples: smp.values, variance: meanVariance(smp.values, value, plan.replicateRelVariance), ...common, ...(o ? { note: `backend ${backend.name} measured no requests: valued by ${smp.metric}, not by the objectives` } : {}) } }
    } catch (e) {
      if (signal?.aborted) throw e
      // A hidden constraint: the combination did not run. Kept apart from an objective missed (which has measurements).
      const failure = classifyFailure(e)
      return { value: null, metrics: { error: failure.message, failure } }
    }
  })
}

async function openSearcher(session: TuneSession, plan: SessionPlan, def: SearchSpaceDefinition, registry: Registry): Promise<Searcher> {
  const strategy = registry.get('search-strategy', session.strategy)
  const state = session.optimizerState as OptimizerState | null
  if (state?.searcher !== undefined && state.searcher !== null) return strategy.restore!(def, state.searcher)
  const s = await strategy.create(def, { seed: plan.seed, seedPoints: plan.seedPoints })
  return s
}

export async function runTune(sessionId: string, deps: RunTuneDeps): Promise<TuneSession> {
  const { store, registry, catalog, signal, onEvent = () => {}, observer = {} } = deps
  let session = await store.tune.require(null, sessionId)
  if (session.status === 'completed' || session.status === 'cancelled') return session
  const plan = session.narrowing as unknown as SessionPlan
  // A session is stored as running when created: a failure before its first trial must be stored
  // too, or it stays "running" with no job behind it (the queue swallows what a job throws).
  const fail = async (e: unknown): Promise<TuneSession> => {
    const msg = e instanceof Error ? e.message : String(e)
    await store.tune.setStatus(sessionId, 'failed', isKerneltuneError(e) ? `${e.code}: ${msg}` : msg)
    onEvent({ type: 'tune.finished', sessionId, status: 'failed', best: session.best, error: msg })
    return store.tune.require(null, sessionId)
  }
  let searcher: Awaited<ReturnType<typeof openSearcher>>
  try {
    const run = await store.runs.require(null, session.runId)
    // Fails before the session starts when the run's backend is gone.
    await withRunBackend(registry, run, async () => {})
    searcher = await openSearcher(session, plan, space(plan, run, catalog), registry)
  } catch (e) {
    return fail(e)
  }
  await store.tune.setStatus(sessionId, 'running')
  onEvent({ type: 'tune.started', sessionId, trialsDone: session.trialsDone })
  const resumedAt = Date.now()
  const baseElapsed = session.elapsedMs
  const elapsed = () => baseElapsed + (Date.now() - resumedAt)
  let best = session.best
  let index = session.trialsDone
  const carried = [...((session.optimizerState as OptimizerState | null)?.inFlight ?? [])]
  let inFlight: SearchConfig[] = []
  const state = (): OptimizerState => ({ searcher: searcher.toJSON(), inFlight: [...inFlight, ...carried] })
  const objectives = storedObjectives(plan)
  const sign = (objectives ? objectives.objective.direction === 'max' : higherIsBetter(plan.metric)) ? 1 : -1
  const stop = async (): Promise<TuneSession> => {
    const paused = signal?.reason === 'pause'
    const status = paused ? 'paused' : 'cancelled'
    await store.tune.setStatus(sessionId, status, null, state())
    onEvent({ type: 'tune.finished', sessionId, status, best, error: null })
    return store.tune.require(null, sessionId)
  }
  try {
    for (;;) {
      if (signal?.aborted) return await stop()
      const { trials, minutes } = session.budget
      if ((trials !== undefined && index >= trials) || (minutes !== undefined && elapsed() >= minutes * 60_000)) break
      // A q-batch, never past the trial budget: first what an interrupted batch left untold.
      const q = Math.max(1, Math.min(deps.batchSize ?? 1, trials !== undefined ? trials - index : Infinity))
      const configs = carried.splice(0, q)
      if (configs.length < q) configs.push(...searcher.ask(q - configs.length))
      inFlight = [...configs]
      if (configs.length === 0) break
      const batch = configs.map((config, i) => ({ config, index: index + i, combo: fullCombo(plan, config) }))
      let results: TrialMeasurement[]
      try {
        if (deps.measureTrials) results = await deps.measureTrials(sessionId, batch.map((b) => ({ index: b.index, combo: b.combo })), signal)
        else {
          results = []
          for (const b of batch) results.push(await measureTrial(sessionId, b.combo, { store, registry, ...(signal ? { signal } : {}) }))
        }
      } catch (e) {
        if (signal?.aborted) return await stop()
        throw e
      }
      for (const [i, b] of batch.entries()) {
        const { value, metrics } = results[i]!
        const { config, combo } = b
        // Strategies minimise: throughput is told negated (its variance is unchanged by the sign).
        const variance = (metrics as { variance?: unknown } | null)?.variance
        const outcome = trialOutcome(results[i]!)
        // Infeasible and failed are both told as failures: bo's feasibility vote learns where
        // either lies and steers its acquisition away; the trial keeps which it was.
        searcher.tell(outcome !== 'ok' || value === null ? { config, failed: true } : { config, value: -sign * value, ...(typeof variance === 'number' && Number.isFinite(variance) ? { variance } : {}) })
        // The best is the best feasible trial.
        if (outcome === 'ok' && value !== null && (!best || sign * (value - best.value) > 0)) best = { trial: index, config: combo, value }
        inFlight = inFlight.slice(1)
        await store.tune.recordTrial(sessionId, { index, config: combo, outcome, value, metrics }, { optimizerState: state(), best, elapsedMs: elapsed() })
        observer.trial?.(outcome)
        onEvent({ type: 'trial', sessionId, index, config: combo, outcome, value, best })
        index++
      }
      session = await store.tune.require(null, sessionId)
      // Another process (an HTTP cancel) may have set the status.
      if (session.status === 'cancelled') {
        onEvent({ type: 'tune.finished', sessionId, status: 'cancelled', best, error: null })
        return session
      }
    }
    await store.tune.setStatus(sessionId, 'completed', null, state())
    onEvent({ type: 'tune.finished', sessionId, status: 'completed', best, error: null })
  } catch (e) {
    session = { ...session, best }
    return fail(e)
  }
  return store.tune.require(null, sessionId)
}
