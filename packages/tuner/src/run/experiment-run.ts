/**
 * A run measured by one of @kerneltune/experiment's designs, in one go on one backend:
 * 'interleaved' (runInterleavedSweep: every combination once per round in a seeded random order
 * beside the baseline and an A/A copy of it, compared with the baseline of the same rounds) or
 * 'sequential' (runSweep: the baseline first, then each combination with early stopping, compared
 * unpaired and gated). The rounds of the interleaved design pair measurements, so with workers the
 * whole run is one job on one worker (the summary names the device and the worker), and a run
 * resumed after a pause starts its rounds again: a round cut in two by a restart would pair
 * measurements from two times. `kerneltune sweep` creates its runs and executes them here, with
 * its own backend and design settings (ExperimentHooks); executeRun sends interleaved runs here.
 */
import { isKerneltuneError, KerneltuneError, type Combo, type EnginePlugin, type MeasurementBackend, type Run } from '@kerneltune/core'
import { runInterleavedSweep, runSweep, type ExperimentMetric, type InterleavedSweepOptions, type InterleavedSweepResult, type PairedComparison, type SweepOptions, type SweepResult } from '@kerneltune/experiment'
import { backendForRun } from './backend.ts'
import { runOptions } from './create.ts'
import { comboMetrics } from './metrics.ts'
import { summarizeRun, type RunSummary } from './summary.ts'
import type { ExecuteRunDeps } from './deps.ts'

/** What a design's run adds to its summary: the design's own result, per combination index. */
export interface ExperimentSummary {
  design: 'interleaved' | 'sequential'
  metric: string
  device: string
  /** The worker that measured every round, when a worker did. */
  worker: string | null
  /** The combination the design's rule picks, with its command line; null keeps the baseline. */
  winner: { index: number; comboHash: string; combo: Combo; improvement: number; argv: string[] } | null
  verdict: string
  /** The command line to run: the winner's, or the baseline's. */
  recommendedArgv: string[]
}

/** An interleaved run's summary adds the rounds, the A/A check and the paired comparisons. */
export interface InterleavedSummary extends ExperimentSummary {
  design: 'interleaved'
  rounds: number
  partialRound: boolean
  seed: number
  test: string
  /** Per combination index: its comparison with the baseline of the same rounds. */
  paired: Record<string, PairedComparison | null>
  aa: { comparison: PairedComparison | null; declaredWinner: boolean; falseWinnerRate: number | null }
  /** The arms in measured order per round ('baseline', 'aa' or a combination index). */
  order: string[][]
  /** Per combination index: the variance of its log ratio to the baseline over rounds (the replicate noise a Tier 2 session reads). */
  replicateVariance: Record<string, number>
}

type DesignSettings = Omit<Partial<InterleavedSweepOptions> & Partial<SweepOptions>, 'backend' | 'candidates' | 'baseline' | 'signal' | 'onProgress'>

/**
 * What a caller that owns the measurement can set (kerneltune sweep): its own backend (a llama-server
 * pool kept across rounds), the engine that translates the winner, how defaults are dropped, the
 * design's settings beyond the run's, and the design's full result once it is stored.
 */
export interface ExperimentHooks {
  readonly backend?: MeasurementBackend
  readonly engine?: EnginePlugin
  readonly withoutDefaults?: (combo: Combo) => Combo
  readonly settings?: DesignSettings
  readonly onResult?: (result: InterleavedSweepResult | SweepResult) => void
}

/** A backend that hands the run's target to every measurement (the experiment designs send only the combination). */
function forRun(backend: MeasurementBackend, run: Run): MeasurementBackend {
  return {
    ...backend,
    measure: (request) => backend.measure({ ...request, engine: run.target.engine, hardware: run.target.hardware, model: run.target.model, workload: run.target.workload }),
  }
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
  const opts = runOptions(run)
  const design = opts.design ?? 'sequential'
  const base = hooks.backend ?? backendForRun(registry, run)
  const backend = hooks.backend ?? forRun(base, run)
  const engine: EnginePlugin = hooks.engine ?? registry.get('engine', run.target.engine)
  const started = Date.now()
  await store.runs.setStatus(runId, 'running')
  const combos = await store.runs.combos(runId)
  const baseline = combos.find((c) => c.isBaseline)
  if (!baseline) throw new KerneltuneError('INTERNAL', `run ${runId} has no baseline combination`)
  const others = combos.filter((c) => !c.isBaseline)
  // Values equal to the baseline's are the baseline's: two combinations that differ only there run alike.
  const withoutDefaults = hooks.withoutDefaults ?? ((c: Combo): Combo => Object.fromEntries(Object.entries(c).filter(([k, v]) => baseline.combo[k] !== v)))
  const rounds = hooks.settings?.rounds ?? opts.rounds ?? 8
  onEvent({ type: 'run.started', runId, total: combos.length })
  const described = { proxy: base.proxy, exercises: base.exercises, equivalentValues: base.equivalentValues, cacheScope }
  // The run's metric decides unless the caller ranks by another (the sweep: decode tokens/s).
  const metric: ExperimentMetric = hooks.settings?.metric ?? opts.metric
  const common = {
    backend, engine, withoutDefaults, baseline: baseline.combo,
    candidates: others.map((c) => ({ combo: c.combo, hash: c.comboHash })),
    metric, ...(hooks.settings?.metric ? {} : { metrics: ['throughputTps', 'latencyMs'] as const }),
    warmups: opts.warmups, gate: 'regression' as const, epsilon: opts.epsilon ?? 0.02,
    ...hooks.settings,
    ...(signal ? { signal } : {}),
  }
  try {
    let r: InterleavedSweepResult | SweepResult
    if (design === 'interleaved') {
      const arms = others.length + 2
      r = await runInterleavedSweep({
        ...common, rounds, seed: opts.seed ?? 1, ...(opts.test ? { test: opts.test } : {}), ...(hooks.settings?.seed !== undefined ? { seed: hooks.settings.seed } : {}),
        onProgress: (p) => onEvent({ type: 'progress', runId, done: Math.min((p.round - 1) * p.steps + p.step, rounds * arms), total: rounds * arms }),
      })
    } else {
      r = await runSweep({ ...common, maxReps: hooks.settings?.maxReps ?? run.repetitions, noiseFloor: hooks.settings?.noiseFloor ?? opts.noiseFloor, earlyStop: hooks.settings?.earlyStop ?? opts.earlyStop, onProgress: (p) => p.done && onEvent({ type: 'progress', runId, done: p.index + 1, total: p.total + 1 }) })
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
      const comparison = p ? { metric, design, stoppedEarly: false, ...p } : unpaired ? { metric, design, stoppedEarly: Boolean(c.stoppedEarly), ...unpaired } : null
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
      winner: w && r.winner ? { index: w.index, comboHash: w.comboHash, combo: w.combo, improvement: improvementOf(r.winner), argv: [...r.winner.llamaServerArgv] } : null,
      verdict: r.verdict, recommendedArgv: [...r.recommendedArgv],
    }
    const orderOf = (arm: string) => (arm === 'baseline' || arm === 'aa' ? arm : String(byHash.get(arm)?.index ?? arm))
    const experiment: ExperimentSummary | InterleavedSummary = 'aa' in r
      ? {
          ...common2, design: 'interleaved', rounds: r.rounds, partialRound: r.partialRound, seed: r.settings.seed, test: r.settings.test,
          paired, aa: { comparison: r.aa.comparison ?? null, declaredWinner: r.aa.declaredWinner, falseWinnerRate: r.aa.falseWinnerRate ?? null },
          order: r.order.map((round) => round.map(orderOf)), replicateVariance,
        }
      : common2
    // The design decides the winner (paired by round, or gated); summarizeRun's own pick could contradict it.
    const designWinner: RunSummary['winner'] = w && r.winner
      ? { index: w.index, comboHash: w.comboHash, combo: w.combo, value: r.winner.stats[metric]?.trimmedMean ?? NaN, improvement: improvementOf(r.winner), proxy: summary.proxy, notMeasured: summary.notMeasured, notToldApart: {} }
      : null
    // With latency objectives judged, they decide (an infeasible combination never wins), as in a sequential run.
    const full = { ...summary, winner: summary.objectives && !summary.objectives.note ? summary.winner : designWinner, experiment }
    const status = stored.some((c) => c.status === 'measured') ? 'succeeded' : 'failed'
    await store.runs.finish(runId, status, full, gates, status === 'failed' ? 'no combination could be measured' : null)
    run = await store.runs.require(null, runId)
    hooks.onResult?.(r)
    onEvent({ type: 'run.finished', runId, status, summary: full, error: run.error })
    return run
  } catch (e) {
    const cancelled = isKerneltuneError(e) && e.code === 'CANCELLED'
    if (cancelled && signal?.reason === 'pause') {
      await store.runs.setStatus(runId, 'queued')
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
  }
}
