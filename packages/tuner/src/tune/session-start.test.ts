/**
 * A session is stored as running when it is created, so what fails before its first trial must be
 * stored as a failure: found when a fresh-clone CI run left `tune start` printing a "running"
 * session with no trials (the strategy refused the defaults' combination as a seed point {}, the
 * queue swallowed the error, and the CLI waited out the events stream's heartbeat).
 */
import { describe, expect, it } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry, KerneltuneError, type SearchStrategyPlugin } from '@kerneltune/core'
import { openStore } from '@kerneltune/store'
import { createRun, executeRun, randomStrategy, runTune, startTune, type TuneEvent } from '../index.ts'
import { HARDWARE, MODEL, testBackend, testEngine } from '../test-fixtures.ts'

const request = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 3, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas', 'cutlass'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
}
const KEEP = ['matmul_path', 'fusion_strategy', 'activation_dtype']

async function measuredRun() {
  const store = await openStore(':memory:')
  const registry = createRegistry([testEngine(), testBackend(), randomStrategy()])
  const catalog = createCatalog()
  const run = await createRun(store, request, { catalog, registry, tenant: 't' })
  await executeRun(run.id, { store, registry })
  return { store, registry, catalog, runId: run.id }
}

describe('a tune session that fails before its first trial', () => {
  it('should seed the search only with Pareto combinations that name every kept dimension', async () => {
    const { store, registry, catalog, runId } = await measuredRun()
    // Put the defaults' combination ({}: every dimension at the engine's default) on the front.
    const run = await store.runs.require(null, runId)
    const summary = run.summary as { pareto: { combo: Record<string, string> }[] }
    await store.runs.finish(runId, 'succeeded', { ...summary, pareto: [{ ...summary.pareto[0]!, combo: {} }, ...summary.pareto] }, new Map())
    const s = await startTune(store, { runId, budget: { trials: 3 }, strategy: 'tuner-random', keep: KEEP }, { catalog, registry, tenant: 't' })
    const seeds = (s.narrowing as { seedPoints: Record<string, string>[] }).seedPoints
    expect(seeds).toHaveLength(summary.pareto.length)
    for (const p of seeds) expect(Object.keys(p).sort()).toEqual([...KEEP].sort())
    const done = await runTune(s.id, { store, registry, catalog })
    expect([done.status, done.trialsDone]).toEqual(['completed', 3])
  })

  it('should store a failure of the strategy before the first trial, and say so in its final event', async () => {
    const { store, registry: base, catalog, runId } = await measuredRun()
    // A strategy that refuses the session's seed points, as bayesian-optimizer's do for an invalid one.
    const refusing: SearchStrategyPlugin = { ...randomStrategy(), name: 'refusing', create: () => { throw new KerneltuneError('INVALID_INPUT', 'the seed point {} is not a valid configuration of this search space') } }
    const registry = createRegistry([...base.list('engine'), ...base.list('measurement-backend'), refusing])
    const s = await startTune(store, { runId, budget: { trials: 3 }, strategy: 'refusing', keep: KEEP }, { catalog, registry, tenant: 't' })
    expect(s.status).toBe('running')
    const events: TuneEvent[] = []
    const done = await runTune(s.id, { store, registry, catalog, onEvent: (e) => events.push(e) })
    expect([done.status, done.trialsDone]).toEqual(['failed', 0])
    expect(done.error).toMatch(/PLUGIN_ERROR: .*create failed: the seed point/)
    expect(events.at(-1)).toMatchObject({ type: 'tune.finished', status: 'failed' })
  })
})
