/**
 * Hidden constraints (SCOOT): a region of the space where the server does not start. Its trials
 * are recorded as failed with the server's own lines, and the Bayesian strategy, told of the
 * failures, spends fewer of its trials there than random search does.
 */
import { describe, expect, it } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { createRegistry, KerneltuneError, type Combo, type MeasurementBackend, type RepetitionMetrics } from '@kerneltune/core'
import { bayesianOptimizationStrategy, randomSearchStrategy } from '@kerneltune/bayesian-optimizer'
import { openStore } from '@kerneltune/store'
import { createRun, executeRun, runTune, startTune } from '../index.ts'
import { HARDWARE, MODEL, testEngine } from '../test-fixtures.ts'
import { classifyFailure } from './failure.ts'

/** The planted crash region: fp8 activations with any fusion but none (fast where it runs, as a real boundary often is). */
const crashes = (c: Combo) => c.activation_dtype?.startsWith('fp8') === true && c.fusion_strategy !== 'none'

/** A backend whose "server" refuses to start in the crash region, with the lines llama-server would print. */
function crashingBackend(): MeasurementBackend {
  return {
    name: 'analytical', kind: 'measurement-backend', apiVersion: 1, simulated: true,
    async measure(request) {
      if (crashes(request.combo)) {
        throw new KerneltuneError('MEASUREMENT_FAILED', 'llama-server exited (code 1) before it was ready: main: error: unable to load model', {
          details: { errorLines: ['llama_init_from_model: the backend does not support this combination', 'main: error: unable to load model'] },
        })
      }
      const latencyMs = (request.combo.activation_dtype?.startsWith('fp8') ? 5 : 10) * (request.combo.matmul_path === 'cutlass' ? 0.9 : 1)
      const reps: RepetitionMetrics[] = Array.from({ length: request.repetitions }, (_, i) => ({ latencyMs: latencyMs * (1 + 0.01 * i), throughputTps: 1000 / (latencyMs * (1 + 0.01 * i)) }))
      return { backend: 'analytical', simulated: true, device: 'crash fixture', repetitions: reps }
    },
  }
}

const request = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 3, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
}

async function failuresOf(strategy: string, seed: number, trials: number) {
  const store = await openStore(':memory:')
  const registry = createRegistry([testEngine(), crashingBackend(), bayesianOptimizationStrategy(), randomSearchStrategy()])
  const catalog = createCatalog()
  const run = await createRun(store, request, { catalog, registry, tenant: 't' })
  await executeRun(run.id, { store, registry })
  const s = await startTune(store, { runId: run.id, budget: { trials }, strategy, seed, keep: ['matmul_path', 'fusion_strategy', 'activation_dtype'], repetitions: 2 }, { catalog, registry, tenant: 't' })
  const done = await runTune(s.id, { store, registry, catalog })
  expect(done.status).toBe('completed')
  const all = await store.tune.trials(s.id)
  return { all, failed: all.filter((t) => t.outcome === 'failed'), space: s.narrowing as { kept: Record<string, string[]> } }
}

describe('hidden constraints in a tune session', () => {
  it('should record a combination whose server does not start as failed, with the kind and the server\'s own lines', async () => {
    const { failed } = await failuresOf('random', 1, 12)
    expect(failed.length).toBeGreaterThan(0)
    for (const t of failed) {
      expect(crashes(t.config)).toBe(true)
      expect(t.value).toBeNull()
      expect(t.metrics).toMatchObject({ failure: { kind: 'start', serverLines: ['llama_init_from_model: the backend does not support this combination', 'main: error: unable to load model'] } })
    }
  })

  it('should spend fewer trials in the crash region with the Bayesian strategy than random search does', async () => {
    let bo = 0
    let random = 0
    for (const seed of [1, 2, 3, 4]) {
      // After its 10 random initial trials the strategy is guided: count where it went from then on.
      bo += (await failuresOf('bo', seed, 22)).failed.filter((t) => t.index >= 10).length
      random += (await failuresOf('random', seed, 22)).failed.filter((t) => t.index >= 10).length
    }
    expect(bo).toBeLessThan(random / 2)
  }, 120_000)
})

describe('classifyFailure', () => {
  it('should tell a server that did not start, one that ran out of memory, one that timed out and one that crashed under load, through the registry\'s wrapping', () => {
    const wrap = (e: unknown) => new KerneltuneError('PLUGIN_ERROR', '[plugin server] measure failed: x', { cause: e })
    const start = classifyFailure(wrap(new KerneltuneError('MEASUREMENT_FAILED', 'llama-server exited (code 1) before it was ready: error: invalid cache type', { details: { errorLines: ['error: invalid cache type: bogus'] } })))
    expect(start).toMatchObject({ kind: 'start', serverLines: ['error: invalid cache type: bogus'] })
    expect(classifyFailure(new KerneltuneError('MEASUREMENT_FAILED', 'llama-server exited (signal SIGKILL) before it was ready: no output')).kind).toBe('oom')
    expect(classifyFailure(new KerneltuneError('MEASUREMENT_FAILED', 'llama-server was not ready within 60000 ms')).kind).toBe('timeout')
    expect(classifyFailure(new KerneltuneError('MEASUREMENT_FAILED', 'fetch failed; server output: GGML_ASSERT failed', { details: { errorLines: ['GGML_ASSERT failed'] } })).kind).toBe('crash')
    expect(classifyFailure(new Error('every request of a load run failed: 400 the request exceeds the available context size (8x)')).kind).toBe('rejected')
    // llama-server's own refusal of a prompt longer than a slot's context, at the warm-up (the message carries the server's output too: not a crash).
    const warm = 'the warm-up request to http://127.0.0.1:34841 failed: HTTP 400: {"error":{"code":400,"message":"request (300 tokens) exceeds the available context size (256 tokens), try increasing it","type":"exceed_context_size_error"}}; check that the server is up and speaks the OpenAI completions API; server output: E srv send_error'
    expect(classifyFailure(new KerneltuneError('MEASUREMENT_FAILED', warm)).kind).toBe('rejected')
    expect(classifyFailure(new Error('something else')).kind).toBe('error')
  })
})
