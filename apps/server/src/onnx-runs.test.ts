/**
 * Issue 37 item 4 through the HTTP API: a Tier 1 run over ONNX Runtime's CPU settings that names
 * the shape of its decoder (onnxModel, the CLI's `sweep --engine onnx --params N`), synthesized by
 * the server and measured for real by the onnxruntime backend, with the roofline prediction in
 * the run detail; then a Tier 2 session on that run (POST /tune) measuring real ORT sessions.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultRegistry } from '@kerneltune/compose/node'
import { openStore, type Store } from '@kerneltune/store'
import { API_BASE, createApp, type App } from './app.ts'

const dir = mkdtempSync(join(tmpdir(), 'kt-onnx-runs-'))
const cache = join(dir, 'cache')
const CPU = { name: 'test cpu', vendor: 'cpu', kind: 'cpu', memBwGbs: 20, fp16Tflops: 0.3, unifiedMemory: true }
/** Every ORT CPU dimension at one value but the intra-op threads: two combinations. */
const RESTRICT = { fusion_strategy: ['aggressive'], ort_intra_op_threads: ['auto', '1'], ort_matmulnbits_accuracy: ['model'], ort_execution_mode: ['sequential'], ort_inter_op_threads: ['auto'], ort_cpu_mem_arena: ['on'], ort_mem_pattern: ['on'], ort_intra_op_spinning: ['on'] }
const ORT_RUN = {
  engine: 'onnx-cpu', backend: 'onnxruntime', model: { name: 'replaced by the synthesized shape', paramsB: 8, quant: 'F16' }, hardware: CPU,
  onnxModel: { params: '2M', vocabSize: 320 }, restrict: RESTRICT, repetitions: 2, warmups: 0, earlyStop: false, useCache: false,
  workload: { batch: 1, promptTokens: 8, generatedTokens: 4 },
}

describe('runs over ONNX Runtime named by a synthesized shape (POST /runs onnxModel)', () => {
  let store: Store
  let app: App
  let token: string
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.app.request(API_BASE + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    return { status: res.status, body: await res.json() as Record<string, any> }
  }
  beforeAll(async () => {
    store = await openStore(':memory:')
    app = createApp({ store, registry: defaultRegistry(), env: { KERNELTUNE_CACHE_DIR: cache } })
    token = (await store.tokens.create('operator', 'acme')).token
  })
  afterAll(async () => {
    await app.shutdown()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('should refuse a shape the route cannot honour, naming the field, before anything is synthesized', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ backend: 'analytical' }, /onnxModel is the ONNX decoder the onnxruntime backend measures; backend analytical runs none/],
      [{ modelPath: '/tmp/x.onnx' }, /give onnxModel .* or modelPath .*, not both/],
      [{ onnxModel: { params: 'lots' } }, /a parameter count such as 2M, 60M or 1B/],
      [{ onnxModel: { params: '2B', weights: 'fp32' } }, /one ONNX file holds at most 2 GiB/],
      [{ onnxModel: { params: '2M', layers: 3 } }, /layers/],
      // The run request's own refinements still apply beside the shape's (safeExtend keeps them).
      [{ slo: { no_such_objective: 1 } }, /no_such_objective/],
    ]
    for (const [change, message] of cases) {
      const r = await call('POST', '/runs', { ...ORT_RUN, ...change })
      expect([r.status, r.body.error?.code], JSON.stringify(change)).toEqual([400, 'INVALID_INPUT'])
      expect(JSON.stringify(r.body.error)).toMatch(message)
    }
    expect(readdirSync(dir)).toEqual([])
  })

  it('should synthesize the decoder once, measure real ORT sessions, store its real shape and give the roofline prediction; then tune it (Tier 2)', async () => {
    const created = await call('POST', '/runs', ORT_RUN)
    expect(created.status, JSON.stringify(created.body)).toBe(202)
    // The stored model is the synthesized llama's shape, not the placeholder the request carried.
    expect(created.body.target.model).toMatchObject({ name: 'synthetic llama 2M (q4)', architecture: 'llama', vocabSize: 320, quant: 'Q4_0' })
    expect(created.body.target.model.numLayers).toBeGreaterThan(0)
    expect(readdirSync(join(cache, 'onnx'))).toEqual([expect.stringMatching(/^llama-2M-q4-v320-h\d+-l\d+-seed1\.onnx$/)])
    await app.queue.idle()

    const run = await call('GET', `/runs/${created.body.id}`)
    expect([run.body.status, run.body.error]).toEqual(['succeeded', null])
    expect(run.body.summary).toMatchObject({ simulated: false })
    expect(run.body.roofline).toMatchObject({ kind: 'prediction', source: expect.stringMatching(/not measured/), hardware: { name: 'test cpu' }, workload: { promptTokens: 8, kvBytesPerElement: 4 } })
    expect(run.body.roofline.decode.boundTps).toBeGreaterThan(0)
    expect(['memory', 'compute']).toContain(run.body.roofline.decode.binding)
    const combos = (await call('GET', `/runs/${created.body.id}/combos`)).body.items as { combo: Record<string, string>; status: string; simulated: boolean; repetitions: { decodeTps: number }[] }[]
    expect(new Set(combos.map((c) => c.combo.ort_intra_op_threads))).toEqual(new Set(['auto', '1']))
    for (const c of combos) {
      expect([c.status, c.simulated]).toEqual(['measured', false])
      for (const r of c.repetitions) expect(r.decodeTps).toBeGreaterThan(0)
    }

    // A second run of the same shape reuses the file.
    const again = await call('POST', '/runs', { ...ORT_RUN, restrict: { ...RESTRICT, ort_intra_op_threads: ['1'] } })
    expect(again.status).toBe(202)
    expect(readdirSync(join(cache, 'onnx'))).toHaveLength(1)
    await app.queue.idle()

    // Tier 2 on the first run: trials are real ORT sessions with the onnx-cpu plugin's settings.
    const tune = await call('POST', '/tune', { runId: created.body.id, budget: { trials: 2 }, strategy: 'random', seed: 3, keep: ['ort_intra_op_threads', 'ort_matmulnbits_accuracy'], repetitions: 2 })
    expect(tune.status, JSON.stringify(tune.body)).toBe(202)
    await app.queue.idle()
    const session = (await call('GET', `/tune/${tune.body.id}`)).body
    expect([session.status, session.trialsDone]).toEqual(['completed', 2])
    for (const t of session.trials) {
      expect(t.outcome).toBe('ok')
      expect(t.metrics).toMatchObject({ simulated: false, device: expect.stringMatching(/ONNX Runtime 1\.\d+\.\d+ \(onnxruntime-node, CPU execution provider\)/) })
    }
  }, 300_000)
})
