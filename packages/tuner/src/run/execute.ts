/**
 * executeRun: measures every pending combination of a run through its measurement backend, the
 * baseline first, with the result cache in front, early termination of a combination's
 * repetitions, the statistics against the baseline, then the quality gate and the summary.
 * Progress is stored after each combination, so a run can be followed from another process.
 */
import { isKerneltuneError, KerneltuneError, type MeasurementBackend, type RegistryEntry, type RegistryKernelUse, type RepetitionMetrics, type Run, type RunCombo } from '@kerneltune/core'
import { compareWithBaseline, measureWithEarlyStop, sequentialLoop } from '@kerneltune/experiment'
import { SHARED_CACHE_TENANT, type Store } from '@kerneltune/store'
import { backendForRun, ownsBackend, runModelPath } from './backend.ts'
import { comboCacheKey, deviceFingerprint } from '../fingerprint.ts'
import { comboMetrics, higherIsBetter, samplesOf } from './metrics.ts'
import { runOptions, type RunOptions } from './create.ts'
import { summarizeRun } from './summary.ts'
import { executeExperimentRun, storedDesignSettings, type ExperimentHooks } from './experiment-run.ts'
import type { ExecuteRunDeps } from './deps.ts'

/** Waits one turn of the event loop (setTimeout is the one such call every runtime has). */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

export type { CacheScopeName, ExecuteRunDeps, RunObserver } from './deps.ts'

interface CachedResult { repetitions: RepetitionMetrics[]; simulated: boolean; device: string; deviceFingerprint?: string; notes: string[] }

/**
 * The device a real backend measures on, for the cache key. Undefined for a prediction; null when
 * a real backend cannot say before measuring: the run then reads the cache only once its first
 * fresh measurement has named the device (a key without it could answer for other hardware).
 */
export async function measuringDevice(backend: MeasurementBackend): Promise<string | undefined | null> {
  if (backend.simulated) return undefined
  if (!backend.device) return null
  try {
    return await backend.device()
  } catch {
    return null
  }
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** The tenant's registry entries for a run that opted into Tier 3 kernels; the backend selects among them. */
export async function registryEntriesFor(store: Store, run: Run, opts: RunOptions): Promise<RegistryEntry[] | undefined> {
  return opts.registryKernels ? store.registry.list(run.tenant) : undefined
}

/**
 * One record per registry kernel over a combination's measurement chunks: a chunk that selected it
 * outranks one that excluded it, and it counts as used if any chunk used it.
 */
function mergeKernelUses(into: RegistryKernelUse[], more: readonly RegistryKernelUse[]): void {
  for (const u of more) {
    const i = into.findIndex((x) => x.id === u.id)
    const had = into[i]
    if (!had) into.push({ ...u })
    else if (u.selection === 'selected' || had.selection === 'excluded') into[i] = { ...u, used: u.used || had.used }
  }
}

/**
 * Measures one combination of a run through the experiment package's sequential step: chunks of
 * repetitions, stopped early once its interval is tight and clearly apart from the baseline's.
 */
export async function measureCombo(backend: MeasurementBackend, run: Run, combo: RunCombo, opts: RunOptions, baseline: readonly RepetitionMetrics[] | undefined, signal?: AbortSignal, registryKernels?: readonly RegistryEntry[]) {
  const kernels: RegistryKernelUse[] = []
  let device = ''
  let simulated = backend.simulated
  const notes: string[] = []
  const metric = samplesOf(baseline ?? [], opts.metric).metric
  const r = await measureWithEarlyStop({
    id: 'combo', maxReps: run.repetitions, firstChunk: 3, step: 2, warmups: opts.warmups, earlyStop: opts.earlyStop,
    rivals: baseline ? [{ id: 'baseline', samples: samplesOf(baseline, opts.metric).values }] : [],
    samples: (reps) => samplesOf(reps, metric).values, higherIsBetter: higherIsBetter(metric), noiseFloor: opts.noiseFloor,
    ...(signal ? { signal } : {}),
    measure: async (repetitions, warmups) => {
      if (signal?.aborted) throw new KerneltuneError('CANCELLED', 'the run was cancelled')
      const result = await backend.measure({
        combo: combo.combo, engine: run.target.engine, hardware: run.target.hardware, model: run.target.model, workload: run.target.workload,
        repetitions, warmups, ...(signal ? { signal } : {}), ...(registryKernels ? { registryKernels } : {}),
      })
      mergeKernelUses(kernels, result.registryKernels ?? [])
      if (result.repetitions.length === 0) throw new KerneltuneError('MEASUREMENT_FAILED', `backend ${backend.name} returned no repetitions`)
      device = result.device
      simulated = simulated || result.simulated
      for (const n of result.notes ?? []) if (!notes.includes(n)) notes.push(n)
      return result.repetitions
    },
  })
  return { reps: r.reps, device, simulated, notes, stoppedEarly: Boolean(r.stoppedEarly), ...(registryKernels ? { kernels } : {}) }
}

/** A combination's comparison with the baseline on the run's metric, as runs store it; null with fewer than 2 repetitions on either side. */
export function runComparison(reps: readonly RepetitionMetrics[], baseline: readonly RepetitionMetrics[] | undefined, opts: RunOptions, stoppedEarly: boolean): Record<string, unknown> | null {
  if (!baseline) return null
  const mine = samplesOf(reps, opts.metric)
  const cmp = compareWithBaseline(mine.values, samplesOf(baseline, mine.metric).values, { higherIsBetter: higherIsBetter(mine.metric) })
  return cmp ? { metric: mine.metric, stoppedEarly, ...cmp } : null
}

/**
 * The one executor of a stored run: the server's queue, its workers, `run create`, `tune start`'s
 * runs and `kerneltune sweep` all call it, with the registry composed by @kerneltune/compose.
 * `hooks` let a caller follow a design's run (its result, its rounds); they change nothing measured.
 */
export async function executeRun(runId: string, deps: ExecuteRunDeps, hooks: ExperimentHooks = {}): Promise<Run> {
  const { store, registry, signal, onEvent = () => {}, observer = {}, cacheScope = 'tenant' } = deps
  let run = await store.runs.require(null, runId)
  const opts = runOptions(run)
  // Rounds pair measurements across combinations: the design runs the whole run in one go. A run
  // that stored its design settings (a sweep's) is executed by its design too, as its creator would.
  if (opts.design === 'interleaved' || storedDesignSettings(run)) return executeExperimentRun(runId, deps, hooks)
  const backend = backendForRun(registry, run)
  const started = Date.now()
  await store.runs.setStatus(runId, 'running')
  let combos = await store.runs.combos(runId)
  onEvent({ type: 'run.started', runId, total: combos.length })
  const ordered = [...combos].sort((a, b) => Number(b.isBaseline) - Number(a.isBaseline) || a.index - b.index)
  let baselineReps = combos.find((c) => c.isBaseline && c.status === 'measured')?.repetitions
  const devices = new Set<string>()
  const stoppedEarly: number[] = []
  let done = combos.filter((c) => c.status !== 'pending').length
  const described = { proxy: backend.proxy, exercises: backend.exercises, equivalentValues: backend.equivalentValues, cacheScope }
  const registryKernels = await registryEntriesFor(store, run, opts)
  try {
    // A model file's path is part of what was measured: two GGUFs of one shape are not the same model.
    const modelPath = runModelPath(run)
    let device = opts.useCache ? await measuringDevice(backend) : undefined
    const tenant = cacheScope === 'shared' ? SHARED_CACHE_TENANT : run.tenant
    const keyOf = (comboHash: string) => device === null ? undefined : comboCacheKey(run.target, run.catalogVersion, comboHash, modelPath ? `${run.backend}:${modelPath}` : run.backend, { tenant, ...(device ? { device, deviceProxy: Boolean(backend.proxy?.device) } : {}) })
    // The one sequential loop (@kerneltune/experiment's sequentialLoop), with this step: the cache
    // in front, then early stopping against the baseline; every result is stored as it comes.
    const byHash = new Map(combos.map((c) => [c.comboHash, c]))
    const base = combos.find((c) => c.isBaseline)
    if (!base) throw new KerneltuneError('INTERNAL', `run ${runId} has no baseline combination`)
    const kept = new Map(combos.filter((c) => c.status !== 'pending').map((c) => [c.comboHash, { combo: c.combo, hash: c.comboHash, reps: c.repetitions }]))
    type StepResult = { status: 'measured' | 'failed'; reps: RepetitionMetrics[]; simulated: boolean; error: string | null; early: boolean; cached: boolean; kernels?: RegistryKernelUse[] }
    const results = new Map<string, StepResult>()
    await sequentialLoop({
      baseline: { combo: base.combo, hash: base.comboHash },
      candidates: ordered.filter((c) => !c.isBaseline).map((c) => ({ combo: c.combo, hash: c.comboHash })),
      done: kept,
      step: async ({ hash }) => {
        const c = byHash.get(hash)!
        if (signal?.aborted) throw new KerneltuneError('CANCELLED', 'the run was cancelled')
        onEvent({ type: 'combo.started', runId, index: c.index, comboHash: c.comboHash })
        const key = keyOf(c.comboHash)
        let cached: CachedResult | undefined
        if (opts.useCache && key) {
          cached = await store.cache.get<CachedResult>(key)
          if (cached && cached.repetitions.length < run.repetitions && !cached.notes.includes('stopped early')) cached = undefined
          cached ? observer.cacheHit?.() : observer.cacheMiss?.()
        }
        let result: StepResult
        if (cached) {
          result = { status: 'measured', reps: cached.repetitions, simulated: cached.simulated, error: null, early: false, cached: true }
          devices.add(cached.device)
        } else {
          try {
            const m = await measureCombo(backend, run, c, opts, c.isBaseline ? undefined : baselineReps, signal, registryKernels)
            observer.comboEvaluated?.()
            devices.add(m.device)
            result = { status: 'measured', reps: m.reps, simulated: m.simulated, error: null, early: m.stoppedEarly, cached: false, ...(m.kernels ? { kernels: m.kernels } : {}) }
            if (device === null && m.device) device = m.device
            const stored: CachedResult = { repetitions: m.reps, simulated: m.simulated, device: m.device, ...(device ? { deviceFingerprint: deviceFingerprint(device) } : {}), notes: m.stoppedEarly ? [...m.notes, 'stopped early'] : m.notes }
            const putKey = key ?? keyOf(c.comboHash)
            if (opts.useCache && putKey) await store.cache.put(putKey, stored)
          } catch (e) {
            if (isKerneltuneError(e) && e.code === 'CANCELLED') throw e
            if (signal?.aborted) throw new KerneltuneError('CANCELLED', 'the run was cancelled')
            observer.comboEvaluated?.()
            result = { status: 'failed', reps: [], simulated: backend.simulated, error: message(e), early: false, cached: false }
          }
        }
        if (c.isBaseline) {
          if (result.status !== 'measured') throw new KerneltuneError('MEASUREMENT_FAILED', `the baseline combination could not be measured: ${result.error}`)
          baselineReps = result.reps
        }
        results.set(hash, result)
        return { reps: result.reps, ...(result.error ? { error: result.error } : {}), ...(result.early ? { stoppedEarly: 'stopped early' } : {}) }
      },
      onMeasured: async (m) => {
        const c = byHash.get(m.hash)!
        // A step that threw (not a measurement: the cache, say) is a failed combination, as the loop records it.
        const result = results.get(m.hash) ?? { status: 'failed', reps: [], simulated: backend.simulated, error: m.error ?? 'failed', early: false, cached: false }
        if (result.early) stoppedEarly.push(c.index)
        const comparison = result.status === 'measured' && !c.isBaseline ? runComparison(result.reps, baselineReps, opts, result.early) : null
        const metrics = comboMetrics(result.reps)
        await store.runs.recordCombo(runId, c.index, { status: result.status, simulated: result.simulated, cached: result.cached, repetitions: result.reps, metrics, comparison, error: result.error, ...(result.kernels ? { kernels: result.kernels } : {}) })
        done++
        onEvent({ type: 'combo.measured', runId, index: c.index, comboHash: c.comboHash, cached: result.cached, simulated: result.simulated, metrics, repetitions: result.reps.length, stoppedEarly: result.early, error: result.error })
        onEvent({ type: 'progress', runId, done, total: combos.length })
        // A simulated backend computes synchronously and the embedded store answers at once, so
        // without this the loop never leaves the microtask queue: no SSE write, no other request
        // and no timer would run until the whole run ended. A macrotask turn lets them through.
        await yieldToEventLoop()
      },
    })
    combos = await store.runs.combos(runId)
    const { summary, gates, rejections } = summarizeRun(run, combos, opts, { devices: [...devices], durationMs: Date.now() - started, stoppedEarly, ...described })
    for (const r of rejections) observer.gateRejection?.(r)
    const measured = combos.filter((c) => c.status === 'measured').length
    const status = measured === 0 ? 'failed' : 'succeeded'
    await store.runs.finish(runId, status, summary, gates, status === 'failed' ? 'no combination could be measured' : null)
    run = await store.runs.require(null, runId)
    onEvent({ type: 'run.finished', runId, status, summary, error: run.error })
    return run
  } catch (e) {
    const cancelled = isKerneltuneError(e) && e.code === 'CANCELLED'
    // A pause (server shutdown) puts the run back in the queue state: the next start continues it.
    if (cancelled && signal?.reason === 'pause') {
      await store.runs.setStatus(runId, 'queued')
      return store.runs.require(null, runId)
    }
    combos = await store.runs.combos(runId)
    const partial = combos.some((c) => c.status === 'measured')
      ? summarizeRun(run, combos, opts, { devices: [...devices], durationMs: Date.now() - started, stoppedEarly, ...described }).summary
      : null
    const status = cancelled ? 'cancelled' : 'failed'
    await store.runs.finish(runId, status, partial, new Map(), cancelled ? 'cancelled by request' : message(e))
    run = await store.runs.require(null, runId)
    onEvent({ type: 'run.finished', runId, status, summary: partial, error: run.error })
    return run
  } finally {
    // A backend made for this run (its servers) stops with it; a shared one stays for the next run.
    if (ownsBackend(registry, run)) await backend.close?.()
  }
}
