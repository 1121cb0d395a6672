/**
 * q-batches and resume: a session stopped mid-batch (paused while the batch is measured, or killed
 * between two stored trials of it) measures the batch's untold configurations first when it
 * resumes. Strategies never suggest a configuration twice, so without this they would be lost.
 */
import { describe, expect, it } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry, type Combo } from '@kerneltune/core'
import { openStore, type Store } from '@kerneltune/store'
import { createRun, executeRun, randomStrategy, runTune, startTune, type MeasureTrials } from '../index.ts'
import { HARDWARE, MODEL, testBackend, testEngine } from '../test-fixtures.ts'

const request = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 3, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas', 'cutlass'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
}

async function session(trials: number) {
  const store = await openStore(':memory:')
  const registry = createRegistry([testEngine(), testBackend(), randomStrategy()])
  const catalog = createCatalog()
  const run = await createRun(store, request, { catalog, registry, tenant: 't' })
  await executeRun(run.id, { store, registry })
  const s = await startTune(store, { runId: run.id, budget: { trials }, strategy: 'tuner-random', keep: ['matmul_path', 'fusion_strategy', 'activation_dtype'] }, { catalog, registry, tenant: 't' })
  return { store, registry, catalog, id: s.id }
}

/** Measures by a fixed rule and records every batch it was given. */
function recorder() {
  const batches: { index: number; combo: Combo }[][] = []
  const measure: MeasureTrials = async (_id, trials) => {
    batches.push([...trials])
    return trials.map((t) => ({ value: t.combo.activation_dtype!.length + (t.combo.matmul_path === 'cutlass' ? 10 : 0), metrics: null }))
  }
  return { batches, measure }
}
const key = (c: Combo) => JSON.stringify(Object.entries(c).sort())

async function expectEveryTrialOnce(store: Store, id: string, n: number) {
  const done = await store.tune.require(null, id)
  expect(done.status).toBe('completed')
  const trials = await store.tune.trials(id)
  expect(trials.map((t) => t.index)).toEqual([...Array(n).keys()])
  expect(new Set(trials.map((t) => key(t.config))).size).toBe(n)
  return trials
}

describe('runTune q-batches', () => {
  it('should measure the untold rest of a batch first when a session killed between two stored trials resumes', async () => {
    const { store, registry, catalog, id } = await session(8)
    const first = recorder()
    // The process dies while storing trial 5: trials 0..4 are stored, 5..7 of the second batch are not.
    const dying: Store = { ...store, tune: { ...store.tune, recordTrial: async (sid, t, s) => {
      if (t.index === 5) throw new Error('killed')
      return store.tune.recordTrial(sid, t, s)
    } } }
    const failed = await runTune(id, { store: dying, registry, catalog, measureTrials: first.measure, batchSize: 4 })
    expect(failed.trialsDone).toBe(5)
    const lost = first.batches[1]!.slice(1)
    expect(lost.map((t) => t.index)).toEqual([5, 6, 7])
    const again = recorder()
    await runTune(id, { store, registry, catalog, measureTrials: again.measure, batchSize: 4 })
    expect(again.batches.flat()).toEqual(lost)
    const trials = await expectEveryTrialOnce(store, id, 8)
    expect(trials.slice(5).map((t) => key(t.config))).toEqual(lost.map((t) => key(t.combo)))
  })

  it('should measure a batch that a pause interrupted when the session resumes', async () => {
    const { store, registry, catalog, id } = await session(8)
    const ac = new AbortController()
    let interrupted: { index: number; combo: Combo }[] = []
    const first = recorder()
    // The second batch is being measured (on workers, say) when the server shuts down.
    const measure: MeasureTrials = async (sid, trials, signal) => {
      if (trials[0]!.index === 0) return first.measure(sid, trials, signal)
      interrupted = [...trials]
      ac.abort('pause')
      throw new Error('aborted')
    }
    const paused = await runTune(id, { store, registry, catalog, measureTrials: measure, batchSize: 4, signal: ac.signal })
    expect(paused.status).toBe('paused')
    expect(paused.trialsDone).toBe(4)
    const again = recorder()
    await runTune(id, { store, registry, catalog, measureTrials: again.measure, batchSize: 4 })
    expect(again.batches[0]).toEqual(interrupted)
    const trials = await expectEveryTrialOnce(store, id, 8)
    expect(trials.slice(4).map((t) => key(t.config))).toEqual(interrupted.map((t) => key(t.combo)))
  })

  it('should resume with a smaller batch size and still measure the carried configurations first, in order', async () => {
    const { store, registry, catalog, id } = await session(8)
    const ac = new AbortController()
    let interrupted: { index: number; combo: Combo }[] = []
    const measure: MeasureTrials = async (_sid, trials) => {
      interrupted = [...trials]
      ac.abort('pause')
      throw new Error('aborted')
    }
    await runTune(id, { store, registry, catalog, measureTrials: measure, batchSize: 4, signal: ac.signal })
    const again = recorder()
    await runTune(id, { store, registry, catalog, measureTrials: again.measure, batchSize: 3 })
    expect(again.batches.map((b) => b.length)).toEqual([3, 3, 2])
    expect(again.batches.flat().slice(0, 4)).toEqual(interrupted)
    await expectEveryTrialOnce(store, id, 8)
  })
})
