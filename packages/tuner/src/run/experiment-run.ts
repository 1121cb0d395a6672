/**
 * A run measured by one of @kerneltune/experiment's designs, in one go on one backend:
 * 'interleaved' (runInterleavedSweep: every combination once per round in a seeded random order
 * beside the baseline and an A/A copy of it, compared with the baseline of the same rounds) or
 * 'sequential' (runSweep: the baseline first, then each combination with early stopping, compared
 * unpaired and gated). The rounds of the interleaved design pair measurements, so with workers the
 * whole run is one job on one worker (the summary names the device and the worker), and a run
 * resumed after a pause starts its rounds again: a round cut in two by a restart would pair
 * measurements from two times. executeRun sends interleaved runs and runs with stored design
 * settings (`kerneltune sweep`'s) here; what is measured comes from the stored run and the registry,
 * so the sweep and the server's queue measure such a run alike (ExperimentHooks only follow it).
 */
import { isKerneltuneError, KerneltuneError, type Combo, type EnginePlugin, type MeasurementBackend, type RepetitionMetrics, type Run } from '@kerneltune/core'
import { GATE_METHODS, metricDirection } from '@kerneltune/stats'
import { z } from 'zod'
import { compareWithBaseline, EXPERIMENT_METRICS, metricSamples, runInterleavedSweep, runSweep, sweepComboHash, type ExperimentMetric, type MeasuredCombo, type InterleavedSweepOptions, type InterleavedSweepResult, type PairedComparison, type SweepOptions, type SweepResult } from '@kerneltune/experiment'
import { backendForRun, ownsBackend, runModelPath } from './backend.ts'
import { runOptions } from './create.ts'
import { comboMetrics } from './metrics.ts'
import { summarizeRun, type RunSummary } from './summary.ts'
import { runVerdict, verdictGate, withRecommendedArgv } from './verdict.ts'
import type { ExperimentSummary, InterleavedSummary } from './experiment-summary.ts'
import { RUN_OWNER_LEASE_MS, type ExecuteRunDeps } from './deps.ts'

export type { ExperimentSummary, InterleavedSummary } from './experiment-summary.ts'

/** The abort reason of an interrupted run (SIGINT to the process measuring it): the run goes back to queued, resumable. */
export const INTERRUPT = 'interrupt'
/** The error an interrupted run carries while it waits to be resumed: what a resume keeps. */
export const interruptedError = (design: 'sequential' | 'interleaved'): string =>
  design === 'interleaved' ? 'interrupted before it finished; its rounds start again when it is resumed' : 'interrupted before it finished; the combinations measured so far are kept'

type DesignSettings = Omit<Partial<InterleavedSweepOptions> & Partial<SweepOptions>, 'backend' | 'candidates' | 'baseline' | 'signal' | 'onProgress' | 'onRound' | 'done' | 'onMeasured' | 'engine' | 'withoutDefaults'>

/** The design settings a run may store beside its options (a sweep's), checked when read back. */
const StoredSettingsSchema = z.object({
  metric: z.enum(EXPERIMENT_METRICS), metrics: z.array(z.enum(EXPERIMENT_METRICS)), gate: z.enum(GATE_METHODS), epsilon: z.number(), margin: z.number(), alpha: z.number(), k: z.number().int(),
  model: z.string(), warmups: z.number().int().min(0), minReps: z.number().int().min(2), maxReps: z.number().int().min(2), earlyStop: z.boolean(), noiseFloor: z.number().positive(),
  rounds: z.number().int().min(2), seed: z.number().int(), test: z.enum(['sign-flip', 'paired', 'blocked']), timeBudgetMs: z.number().positive(), revisitWarmups: z.number().int().min(0),
  aaCombo: z.record(z.string(), z.string()), aaResamples: z.number().int().positive(), prelaunch: z.boolean(),
}).partial()

/**
 * The design settings a run stores (`options.experiment`: a sweep's metric, gate and repetitions),
 * so that any process executing it (a resume, a server's queue after a restart) measures it as
 * the process that created it would; undefined for runs without them.
 */
export function storedDesignSettings(run: Pick<Run, 'target'>): DesignSettings | undefined {
  const raw = run.target.options?.experiment
  if (raw === undefined) return undefined
  const parsed = StoredSettingsSchema.safeParse(raw)
  if (!parsed.success) throw new KerneltuneError('INVALID_INPUT', `the run's stored design settings are not readable: ${parsed.error.message}`)
  return Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) as DesignSettings
}

/**
 * What a caller that follows the run can set (kerneltune sweep): the design's full result once it is
 * stored, the rounds' deadline and the result after each round. What is measured (design settings,
 * engine, which values are defaults) comes from the stored run and the registry only, so the
 * sweep and the server's queue measure a run alike. `backend` replaces the registry's for what the
 * composed backend cannot be told by the stored run (a node-llama-cpp GPU build).
 */
export interface ExperimentHooks {
  readonly backend?: MeasurementBackend
  readonly onResult?: (result: InterleavedSweepResult | SweepResult) => void
  /**
   * When the interleaved rounds must end (Date.now() clock): the time budget of the caller's whole
   * command, of which the rounds are one part. Counted from the first measurement (no minimum
   * rounds), and not stored with the run: a resumed run gets a deadline of its own.
   */
  readonly deadline?: number
  /** The interleaved design's result after every round but the last (runInterleavedSweep's onRound). */
  readonly onRound?: (partial: InterleavedSweepResult) => void | Promise<void>
}

/** A backend that hands the run's target to every measurement (the experiment designs send only the combination). */
function forRun(backend: MeasurementBackend, run: Run): MeasurementBackend {
  const target = { engine: run.target.engine, hardware: run.target.hardware, model: run.target.model, workload: run.target.workload }
  const prepare = backend.prepare?.bind(backend)
  return {
    ...backend,
    measure: (request) => backend.measure({ ...request, ...target }),
    ...(prepare ? { prepare: (requests: Parameters<typeof prepare>[0]) => prepare(requests.map((r) => ({ ...r, ...target }))) } : {}),
  }
}

/** A sequential combination against the baseline as stored while the design runs (the final record replaces it with the analysis's). */
function unpairedComparison(m: MeasuredCombo, baseline: readonly RepetitionMetrics[], metric: ExperimentMetric, higherIsBetter: boolean): Record<string, unknown> | null {
  const cmp = compareWithBaseline(metricSamples(m.reps, metric), metricSamples(baseline, metric), { higherIsBetter })
  return cmp ? { metric, design: 'sequential', stoppedEarly: Boolean(m.stoppedEarly), ...(m.stoppedEarly ? { stoppedEarlyReason: m.stoppedEarly } : {}), ...cmp } : null
}

/** The variance of log(arm / baseline) over the rounds both were measured in. */
function logRatioVariance(arm: readonly (number | undefined)[], base: readonly (number | undefined)[]): number | undefined {
  const xs: number[] = []
  for (let i = 0; i < Math.min(arm.length, base.length); i++) {
    const a = arm[i]
    const b = base[i]
    if (a !== undefined && b !== undefined && a > 0 && b > 0) xs.push(Math.log(a / b))
  }
  if (xs.length < 2) return undefined
  const m = xs.reduce((s, x) => s + x, 0) / xs.length
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1)
}

export async function executeExperimentRun(runId: string, deps: ExecuteRunDeps, hooks: ExperimentHooks = {}): Promise<Run> {
  const { store, registry, signal, onEvent = () => {}, cacheScope = 'tenant' } = deps
  let run = await store.runs.require(null, runId)
  // Another process holding the run with a fresh heartbeat (a sweep) is measuring it: executing it
  // here too would race it, and a failure here would overwrite its run. Nothing is written.
  const owner = await store.runs.owner(runId)
  const age = owner ? Date.now() - Date.parse(owner.heartbeatAt) : Infinity
  if (owner && owner.id !== deps.ownerId && age < RUN_OWNER_LEASE_MS) {
    throw new KerneltuneError('CONFLICT', `run ${runId} is being measured by pid ${owner.pid} on ${owner.host} (heartbeat ${Math.round(age / 1000)} s ago); it can be executed here once that process has stopped for ${RUN_OWNER_LEASE_MS / 1000} s (kerneltune run resume ${runId} checks the process itself)`)
  }
  const opts = runOptions(run)
  const design = opts.design ?? 'sequential'
  // What the run stored, under what the caller sets: a resumed sweep and a generic executor agree.
  const settings: DesignSettings = storedDesignSettings(run) ?? {}
  const base = hooks.backend ?? backendForRun(registry, run)
  // Every measurement gets the run's target (its workload: prompt and generated tokens), the caller's backend too.
  const backend = forRun(base, run)
  const engine: EnginePlugin = registry.get('engine', run.target.engine)
  const started = Date.now()
  await store.runs.setStatus(runId, 'running')
  const combos = await store.runs.combos(runId)
  const baseline = combos.find((c) => c.isBaseline)
  if (!baseline) throw new KerneltuneError('INTERNAL', `run ${runId} has no baseline combination`)
  const others = combos.filter((c) => !c.isBaseline)
  // Values equal to the baseline's, or to the engine's own default, are the defaults: two
  // combinations that differ only there run alike, and the winner's command line leaves them out.
  const defaults: Record<string, string> = { ...Object.fromEntries((engine.catalogExtension?.dimensions ?? []).map((d) => [d.id, d.defaultValue])), ...baseline.combo }
  const withoutDefaults = (c: Combo): Combo => Object.fromEntries(Object.entries(c).filter(([k, v]) => defaults[k] !== v))
  const rounds = settings.rounds ?? opts.rounds ?? 8
  onEvent({ type: 'run.started', runId, total: combos.length })
  const described = { proxy: base.proxy, exercises: base.exercises, equivalentValues: base.equivalentValues, cacheScope }
  // The run's metric decides unless the caller ranks by another (the sweep: decode tokens/s).
  const metric: ExperimentMetric = settings.metric ?? opts.metric
  const common = {
    backend, engine, withoutDefaults, baseline: baseline.combo,
    candidates: others.map((c) => ({ combo: c.combo, hash: c.comboHash })),
    metric, ...(settings.metric ? {} : { metrics: ['throughputTps', 'latencyMs'] as const }),
    warmups: opts.warmups, gate: 'regression' as const, epsilon: opts.epsilon ?? 0.02,
    ...settings,
    ...(signal ? { signal } : {}),
  }
  let storedBaseline: readonly RepetitionMetrics[] = baseline.status === 'measured' ? baseline.repetitions : []
  const baselineReps = () => storedBaseline
  try {
    let r: InterleavedSweepResult | SweepResult
    if (design === 'interleaved') {
      const arms = others.length + 2
      r = await runInterleavedSweep({
        ...common, rounds, seed: opts.seed ?? 1, ...(opts.test ? { test: opts.test } : {}), ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
        ...(hooks.deadline === undefined ? {} : { timeBudgetMs: Math.max(0, hooks.deadline - Date.now()), minRounds: 0 }),
        ...(hooks.onRound ? { onRound: hooks.onRound } : {}),
        onProgress: (p) => onEvent({ type: 'progress', runId, done: Math.min((p.round - 1) * p.steps + p.step, rounds * arms), total: rounds * arms }),
      })
    } else {
      // Stored after each combination, and kept on a resume: a sweep killed after its baseline
      // continues with the combinations still pending instead of measuring everything again.
      const indexOf = new Map(combos.map((c) => [c.isBaseline ? sweepComboHash(c.combo) : c.comboHash, c.index]))
      const done = new Map<string, MeasuredCombo>()
      for (const c of combos) {
        if (c.status !== 'measured' && c.status !== 'failed') continue
        const reason = (c.comparison as { stoppedEarlyReason?: unknown } | null)?.stoppedEarlyReason
        const hash = c.isBaseline ? sweepComboHash(c.combo) : c.comboHash
        done.set(hash, { combo: c.combo, hash, reps: c.repetitions, ...(c.error ? { error: c.error } : {}), ...(typeof reason === 'string' ? { stoppedEarly: reason } : {}) })
      }
      const higherIsBetter = metricDirection(metric) === 'higher'
      r = await runSweep({
        ...common, done, maxReps: settings.maxReps ?? run.repetitions, noiseFloor: settings.noiseFloor ?? opts.noiseFloor, earlyStop: settings.earlyStop ?? opts.earlyStop,
        onProgress: (p) => p.done && onEvent({ type: 'progress', runId, done: p.index + 1, total: p.total + 1 }),
        onMeasured: async (m, isBaseline) => {
          const index = indexOf.get(m.hash)
          if (index === undefined) return
          const comparison = isBaseline ? null : unpairedComparison(m, baselineReps(), metric, higherIsBetter)
          await store.runs.recordCombo(runId, index, { status: m.error ? 'failed' : 'measured', simulated: base.simulated, cached: false, repetitions: [...m.reps], metrics: comboMetrics(m.reps), comparison, error: m.error ?? null })
          if (isBaseline) storedBaseline = m.reps
        },
      })
    }
    const byHash = new Map(others.map((c) => [c.comboHash, c]))
    const paired: Record<string, PairedComparison | null> = {}
    const replicateVariance: Record<string, number> = {}
    const baseValues = r.baseline.reps.map((x) => x[metric])
    for (const c of r.combos) {
      const rc = byHash.get(c.hash)
      if (!rc) continue
      const p = 'paired' in c ? c.paired[metric] ?? null : null
      if ('paired' in c) {
        paired[String(rc.index)] = p
        const v = logRatioVariance(c.reps.map((x) => x[metric]), baseValues)
        if (v !== undefined) replicateVariance[String(rc.index)] = v
      }
      const unpaired = c.comparison[metric]
      const comparison = p ? { metric, design, stoppedEarly: false, ...p } : unpaired ? { metric, design, stoppedEarly: Boolean(c.stoppedEarly), ...(c.stoppedEarly ? { stoppedEarlyReason: c.stoppedEarly } : {}), ...unpaired } : null
      await store.runs.recordCombo(runId, rc.index, {
        status: c.error ? 'failed' : 'measured', simulated: r.simulated, cached: false, repetitions: [...c.reps], metrics: comboMetrics(c.reps), comparison, error: c.error ?? null,
      })
      onEvent({ type: 'combo.measured', runId, index: rc.index, comboHash: rc.comboHash, cached: false, simulated: r.simulated, metrics: comboMetrics(c.reps), repetitions: c.reps.length, stoppedEarly: Boolean(c.stoppedEarly), error: c.error ?? null })
    }
    // Candidates the design measured as the baseline (they run the same) keep the baseline's numbers.
    for (const c of others) if (!r.combos.some((x) => x.hash === c.comboHash)) await store.runs.recordCombo(runId, c.index, { status: 'measured', simulated: r.simulated, cached: false, repetitions: [...r.baseline.reps], metrics: comboMetrics(r.baseline.reps), comparison: null, error: null })
    await store.runs.recordCombo(runId, baseline.index, { status: 'measured', simulated: r.simulated, cached: false, repetitions: [...r.baseline.reps], metrics: comboMetrics(r.baseline.reps), comparison: null, error: null })
    const stored = await store.runs.combos(runId)
    const { summary, gates } = summarizeRun(run, stored, opts, { devices: [r.device], durationMs: Date.now() - started, stoppedEarly: [], ...described })
    const w = r.winner ? byHash.get(r.winner.hash) : undefined
    const improvementOf = (x: NonNullable<typeof r.winner>) => ('paired' in x ? x.paired[metric]?.improvement : x.comparison[metric]?.improvement) ?? NaN
    const common2: ExperimentSummary = {
      design, metric, device: r.device, worker: deps.worker ?? null,
      winner: w && r.winner ? { index: w.index, comboHash: w.comboHash, combo: w.combo, improvement: improvementOf(r.winner), argv: [...r.winner.argv], value: r.winner.stats[metric]?.trimmedMean ?? NaN } : null,
      verdict: r.verdict, recommendedArgv: [...r.recommendedArgv],
    }
    const orderOf = (arm: string) => (arm === 'baseline' || arm === 'aa' ? arm : String(byHash.get(arm)?.index ?? arm))
    const experiment: ExperimentSummary | InterleavedSummary = 'aa' in r
      ? {
          ...common2, design: 'interleaved', rounds: r.rounds, partialRound: r.partialRound, seed: r.settings.seed, test: r.settings.test,
          paired, aa: { comparison: r.aa.comparison ?? null, declaredWinner: r.aa.declaredWinner, falseWinnerRate: r.aa.falseWinnerRate ?? null },
          order: r.order.map((round) => round.map(orderOf)), replicateVariance,
          // Where the time went: round 1 against the later rounds, and every launch with its phases.
          roundSeconds: [...r.roundSeconds], prepareSeconds: r.prepareSeconds ?? null,
          launches: Object.fromEntries(Object.entries(r.launches).map(([arm, l]) => [orderOf(arm), [...l]])),
        }
      : common2
    // One verdict (verdict.ts decides: objectives, else the design, else the gate), and its command line is the one stored.
    const full: RunSummary & { experiment: ExperimentSummary | InterleavedSummary } = { ...summary, experiment }
    const argvOf = async (combo: Combo): Promise<string[] | null> => {
      const t = await engine.translate(withoutDefaults(combo), { model: settings.model ?? runModelPath(run) ?? run.target.model.name })
      return t.ok ? [...t.argv] : null
    }
    full.verdict = await withRecommendedArgv(runVerdict(full, { winnerGate: verdictGate(full, gates), ...(settings.alpha === undefined ? {} : { alpha: settings.alpha }), ...(settings.epsilon === undefined ? {} : { band: settings.epsilon }) }), stored, argvOf)
    experiment.recommendedArgv = full.verdict.recommendedArgv ?? []
    const status = stored.some((c) => c.status === 'measured') ? 'succeeded' : 'failed'
    await store.runs.finish(runId, status, full, gates, status === 'failed' ? 'no combination could be measured' : null)
    run = await store.runs.require(null, runId)
    hooks.onResult?.(r)
    onEvent({ type: 'run.finished', runId, status, summary: full, error: run.error })
    return run
  } catch (e) {
    const cancelled = isKerneltuneError(e) && e.code === 'CANCELLED'
    // A pause (server shutdown) or an interrupt (the sweep's process got SIGINT) leaves the run to
    // be continued: queued, with what was stored kept; an interrupt says so in the run's error.
    if (cancelled && (signal?.reason === 'pause' || signal?.reason === INTERRUPT)) {
      await store.runs.setStatus(runId, 'queued', signal.reason === INTERRUPT ? interruptedError(design) : null)
      return store.runs.require(null, runId)
    }
    const status = cancelled ? 'cancelled' : 'failed'
    const error = cancelled ? 'cancelled by request' : e instanceof Error ? e.message : String(e)
    await store.runs.finish(runId, status, null, new Map(), error)
    run = await store.runs.require(null, runId)
    onEvent({ type: 'run.finished', runId, status, summary: null, error: run.error })
    // The caller that owns the measurement (the sweep) reports the failure itself.
    if (hooks.onResult) throw e
    return run
  } finally {
    // A backend made for this run (servers kept across its rounds) stops here, however the run ended;
    // a shared one (a registered plugin, a model file's backend for every run) stays for the next run.
    if (!hooks.backend && ownsBackend(registry, run)) await base.close?.()
  }
}
