/**
 * A run with the interleaved design (@kerneltune/experiment's runInterleavedSweep): every
 * combination once per round in a seeded random order beside the baseline and a second copy of it
 * (the A/A arm), each compared with the baseline of the same rounds. The rounds pair measurements,
 * so the whole run is measured by one backend on one device in one go: with workers it is one job
 * on one worker (the summary names the device and the worker). A run resumed after a pause starts
 * its rounds again, since a round cut in two by a restart would pair measurements from two times.
 */
import { isKerneltuneError, KerneltuneError, type Combo, type EnginePlugin, type MeasurementBackend, type Run } from '@kerneltune/core'
import { runInterleavedSweep, type ExperimentMetric, type InterleavedSweepResult, type PairedComparison } from '@kerneltune/experiment'
import { backendForRun } from './backend.ts'
import { runOptions } from './create.ts'
import { comboMetrics } from './metrics.ts'
import { summarizeRun, type RunSummary } from './summary.ts'
import type { ExecuteRunDeps } from './deps.ts'

/** What an interleaved run adds to its summary: the design's own result, per combination index. */
export interface InterleavedSummary {
  design: 'interleaved'
  rounds: number
  partialRound: boolean
  seed: number
  test: string
  metric: string
  device: string
  /** The worker that measured every round, when a worker did. */
  worker: string | null
  /** Per combination index: its comparison with the baseline of the same rounds. */
  paired: Record<string, PairedComparison | null>
  aa: { comparison: PairedComparison | null; declaredWinner: boolean; falseWinnerRate: number | null }
  /** The combination the paired rule picks, with its command line; null keeps the baseline. */
  winner: { index: number; comboHash: string; combo: Combo; improvement: number; argv: string[] } | null
  verdict: string
  /** The arms in measured order per round ('baseline', 'aa' or a combination index). */
  order: string[][]
  /** Per combination index: the variance of its log ratio to the baseline over rounds (the replicate noise a Tier 2 session reads). */
  replicateVariance: Record<string, number>
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

export async function executeInterleavedRun(runId: string, deps: ExecuteRunDeps): Promise<Run> {
  const { store, registry, signal, onEvent = () => {}, cacheScope = 'tenant' } = deps
  let run = await store.runs.require(null, runId)
  const opts = runOptions(run)
  const base = backendForRun(registry, run)
  const backend = forRun(base, run)
  const engine: EnginePlugin = registry.get('engine', run.target.engine)
  const started = Date.now()
  await store.runs.setStatus(runId, 'running')
  const combos = await store.runs.combos(runId)
  const baseline = combos.find((c) => c.isBaseline)
  if (!baseline) throw new KerneltuneError('INTERNAL', `run ${runId} has no baseline combination`)
  const others = combos.filter((c) => !c.isBaseline)
  // Values equal to the baseline's are the baseline's: two combinations that differ only there run alike.
  const withoutBaseline = (c: Combo): Combo => Object.fromEntries(Object.entries(c).filter(([k, v]) => baseline.combo[k] !== v))
  const rounds = opts.rounds ?? 8
  const arms = others.length + 2
  const total = rounds * arms
  onEvent({ type: 'run.started', runId, total: combos.length })
  const described = { proxy: base.proxy, exercises: base.exercises, equivalentValues: base.equivalentValues, cacheScope }
  try {
    // Both run metrics are paired; the run's metric decides. A backend that reports no throughput
    // leaves that metric unpaired, and the verdict then says no combination could be compared.
    const metric: ExperimentMetric = opts.metric
    const r: InterleavedSweepResult = await runInterleavedSweep({
      backend, engine, withoutDefaults: withoutBaseline,
      baseline: baseline.combo,
      candidates: others.map((c) => ({ combo: c.combo, hash: c.comboHash })),
      metric, metrics: ['throughputTps', 'latencyMs'],
      rounds, seed: opts.seed ?? 1, ...(opts.test ? { test: opts.test } : {}),
      warmups: opts.warmups,
      gate: 'regression', epsilon: opts.epsilon ?? 0.02,
      ...(signal ? { signal } : {}),
      onProgress: (p) => onEvent({ type: 'progress', runId, done: Math.min((p.round - 1) * p.steps + p.step, total), total }),
    })
    const byHash = new Map(others.map((c) => [c.comboHash, c]))
    const paired: Record<string, PairedComparison | null> = {}
    const replicateVariance: Record<string, number> = {}
    const baseValues = r.baseline.reps.map((x) => x[metric])
    for (const c of r.combos) {
      const rc = byHash.get(c.hash)
      if (!rc) continue
      const p = c.paired[metric] ?? null
      paired[String(rc.index)] = p
      const v = logRatioVariance(c.reps.map((x) => x[metric]), baseValues)
      if (v !== undefined) replicateVariance[String(rc.index)] = v
      await store.runs.recordCombo(runId, rc.index, {
        status: c.error ? 'failed' : 'measured', simulated: r.simulated, cached: false, repetitions: [...c.reps], metrics: comboMetrics(c.reps),
        comparison: p ? { metric, design: 'interleaved', stoppedEarly: false, ...p } : null, error: c.error ?? null,
      })
      onEvent({ type: 'combo.measured', runId, index: rc.index, comboHash: rc.comboHash, cached: false, simulated: r.simulated, metrics: comboMetrics(c.reps), repetitions: c.reps.length, stoppedEarly: false, error: c.error ?? null })
    }
    await store.runs.recordCombo(runId, baseline.index, { status: 'measured', simulated: r.simulated, cached: false, repetitions: [...r.baseline.reps], metrics: comboMetrics(r.baseline.reps), comparison: null, error: null })
    const stored = await store.runs.combos(runId)
    const { summary, gates } = summarizeRun(run, stored, opts, { devices: [r.device], durationMs: Date.now() - started, stoppedEarly: [], ...described })
    const w = r.winner ? byHash.get(r.winner.hash) : undefined
    const orderOf = (arm: string) => (arm === 'baseline' || arm === 'aa' ? arm : String(byHash.get(arm)?.index ?? arm))
    const experiment: InterleavedSummary = {
      design: 'interleaved', rounds: r.rounds, partialRound: r.partialRound, seed: r.settings.seed, test: r.settings.test, metric, device: r.device, worker: deps.worker ?? null,
      paired, aa: { comparison: r.aa.comparison ?? null, declaredWinner: r.aa.declaredWinner, falseWinnerRate: r.aa.falseWinnerRate ?? null },
      winner: w && r.winner ? { index: w.index, comboHash: w.comboHash, combo: w.combo, improvement: r.winner.paired[metric]!.improvement, argv: [...r.winner.llamaServerArgv] } : null,
      verdict: r.verdict, order: r.order.map((round) => round.map(orderOf)), replicateVariance,
    }
    // The design decides the winner (paired by round); the unpaired pick of summarizeRun would contradict it.
    const designWinner: RunSummary['winner'] = w && r.winner
      ? { index: w.index, comboHash: w.comboHash, combo: w.combo, value: r.winner.stats[metric]?.trimmedMean ?? NaN, improvement: r.winner.paired[metric]!.improvement, proxy: summary.proxy, notMeasured: summary.notMeasured, notToldApart: {} }
      : null
    const full = { ...summary, winner: designWinner, experiment }
    const status = stored.some((c) => c.status === 'measured') ? 'succeeded' : 'failed'
    await store.runs.finish(runId, status, full, gates, status === 'failed' ? 'no combination could be measured' : null)
    run = await store.runs.require(null, runId)
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
    return run
  }
}
