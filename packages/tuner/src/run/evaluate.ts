/**
 * One combination of a run, measured and stored on its own: what a distributed worker does with a
 * job. The same steps as executeRun's loop (cache, measurement with early stop, comparison with the
 * baseline), but the result is stored with recordComboOnce, so a job delivered twice (a worker
 * killed mid-measurement, its job retried elsewhere) stores one result and counts once.
 */
import { isKerneltuneError, KerneltuneError, type RegistryKernelUse, type RepetitionMetrics } from '@kerneltune/core'
import { SHARED_CACHE_TENANT, type Store } from '@kerneltune/store'
import type { Registry } from '@kerneltune/core'
import { runModelPath, withRunBackend } from './backend.ts'
import { comboCacheKey, deviceFingerprint } from '../fingerprint.ts'
import { comboMetrics } from './metrics.ts'
import { runOptions } from './create.ts'
import { measureCombo, measuringDevice, registryEntriesFor, runComparison, type CacheScopeName, type RunObserver } from './execute.ts'

export interface EvaluateComboDeps {
  readonly store: Store
  readonly registry: Registry
  readonly signal?: AbortSignal
  readonly observer?: RunObserver
  readonly cacheScope?: CacheScopeName
}

export interface EvaluateComboResult {
  /** 'stored': this call stored the result; 'duplicate': another delivery had; 'skipped': the run is no longer running or queued. */
  readonly outcome: 'stored' | 'duplicate' | 'skipped'
  readonly status?: 'measured' | 'failed'
  readonly device?: string
  readonly stoppedEarly?: boolean
  readonly cached?: boolean
}

interface CachedResult { repetitions: RepetitionMetrics[]; simulated: boolean; device: string; deviceFingerprint?: string; notes: string[] }

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))

/**
 * Measures combination `index` of run `runId` unless it already has a result. A non-baseline
 * combination needs the baseline measured first (the dispatcher enqueues it first); without it the
 * comparison is left out rather than guessed.
 */
export async function evaluateCombo(runId: string, index: number, deps: EvaluateComboDeps): Promise<EvaluateComboResult> {
  const { store, registry, signal, observer = {}, cacheScope = 'tenant' } = deps
  const run = await store.runs.require(null, runId)
  if (run.status !== 'running' && run.status !== 'queued') return { outcome: 'skipped' }
  const combos = await store.runs.combos(runId)
  const c = combos.find((x) => x.index === index)
  if (!c) throw new KerneltuneError('NOT_FOUND', `run ${runId} has no combination ${index}`)
  if (c.status !== 'pending') return { outcome: 'duplicate' }
  const opts = runOptions(run)
  // A backend made for this run (a kept server pool) is closed once the combination is stored.
  return withRunBackend(registry, run, async (backend) => {
    const baselineReps = c.isBaseline ? undefined : combos.find((x) => x.isBaseline && x.status === 'measured')?.repetitions
    const modelPath = runModelPath(run)
    let device = opts.useCache ? await measuringDevice(backend) : undefined
    const tenant = cacheScope === 'shared' ? SHARED_CACHE_TENANT : run.tenant
    const keyOf = () => device === null ? undefined : comboCacheKey(run.target, run.catalogVersion, c.comboHash, modelPath ? `${run.backend}:${modelPath}` : run.backend, { tenant, ...(device ? { device, deviceProxy: Boolean(backend.proxy?.device) } : {}) })
    const key = keyOf()
    let cached: CachedResult | undefined
    if (opts.useCache && key) {
      cached = await store.cache.get<CachedResult>(key)
      if (cached && cached.repetitions.length < run.repetitions && !cached.notes.includes('stopped early')) cached = undefined
      cached ? observer.cacheHit?.() : observer.cacheMiss?.()
    }
    let result: { status: 'measured' | 'failed'; reps: RepetitionMetrics[]; simulated: boolean; error: string | null; early: boolean; device: string; kernels?: RegistryKernelUse[] }
    if (cached) {
      result = { status: 'measured', reps: cached.repetitions, simulated: cached.simulated, error: null, early: false, device: cached.device }
    } else {
      try {
        const m = await measureCombo(backend, run, c, opts, baselineReps, signal, await registryEntriesFor(store, run, opts))
        observer.comboEvaluated?.()
        if (device === null && m.device) device = m.device
        result = { status: 'measured', reps: m.reps, simulated: m.simulated, error: null, early: m.stoppedEarly, device: m.device, ...(m.kernels ? { kernels: m.kernels } : {}) }
        const stored: CachedResult = { repetitions: m.reps, simulated: m.simulated, device: m.device, ...(device ? { deviceFingerprint: deviceFingerprint(device) } : {}), notes: m.stoppedEarly ? [...m.notes, 'stopped early'] : m.notes }
        const putKey = key ?? keyOf()
        if (opts.useCache && putKey) await store.cache.put(putKey, stored)
      } catch (e) {
        // A cancelled job is not a result: the combination stays pending for the next delivery.
        if ((isKerneltuneError(e) && e.code === 'CANCELLED') || signal?.aborted) throw e
        observer.comboEvaluated?.()
        result = { status: 'failed', reps: [], simulated: backend.simulated, error: message(e), early: false, device: '' }
      }
    }
    const comparison = result.status === 'measured' && !c.isBaseline ? runComparison(result.reps, baselineReps, opts, result.early) : null
    const stored = await store.runs.recordComboOnce(runId, index, { status: result.status, simulated: result.simulated, cached: Boolean(cached), repetitions: result.reps, metrics: comboMetrics(result.reps), comparison, error: result.error, ...(result.kernels ? { kernels: result.kernels } : {}) })
    return { outcome: stored ? 'stored' : 'duplicate', status: result.status, device: result.device, stoppedEarly: result.early, cached: Boolean(cached) }
  })
}
