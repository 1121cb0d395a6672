import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../main.ts'
import { memoryIo, runMain } from '../cli/testing.ts'

const dir = mkdtempSync(join(tmpdir(), 'kt-sweep-onnx-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// The synthesized model goes to a cache of the test's own; the run to a store of its own.
const run = async (...argv: string[]) => {
  const m = memoryIo(dir, { KERNELTUNE_CACHE_DIR: join(dir, 'cache') })
  const code = await main([...argv, '--db', join(dir, 'kt.db')], m.io)
  return { code, out: m.out(), err: m.err() }
}

// A tiny llama (2M parameters, 4-bit) and two dimensions: 3 combinations besides the defaults.
const SMALL = ['--params', '2M', '--vocab-size', '320', '--quick', '--space', JSON.stringify({ ort_intra_op_threads: ['auto', '1'], ort_matmulnbits_accuracy: ['model', '4'] }), '--warmup', '0', '--prompt-tokens', '8', '--gen-tokens', '4']

describe('kerneltune sweep --engine onnx', () => {
  it('should synthesize the model once, measure real ORT sessions as a stored run and print the run\'s verdict and the roofline prediction', async () => {
    const r = await run('sweep', '--engine', 'onnx', '--backend', 'onnxruntime', ...SMALL, '--rounds', '3')
    expect([0, 3], r.err).toContain(r.code)
    expect(r.err).toMatch(/synthesizing a 2M llama \(q4/)
    expect(readdirSync(join(dir, 'cache', 'onnx')).filter((f) => f.endsWith('.onnx'))).toHaveLength(1)
    expect(r.out).toMatch(/ONNX Runtime 1\.\d+\.\d+ \(onnxruntime-node, CPU execution provider\)/)
    expect(r.out).toMatch(/^prediction \(roofline on .*not measured\): decode at most [\d.,]+ tok\/s/m)
    const verdict = /^verdict: (.+)$/m.exec(r.out)?.[1]
    expect(verdict).toBeDefined()
    const runId = /stored as run (\S+) /.exec(r.out)![1]!

    // run show reads the same run: the ORT backend, the interleaved design, every arm's rounds and the same verdict.
    const show = await runMain(['run', 'show', runId, '--json', '--db', join(dir, 'kt.db')], dir)
    expect([show.code, show.err]).toEqual([0, ''])
    const s = JSON.parse(show.out)
    expect(s.run).toMatchObject({ id: runId, status: 'succeeded', backend: 'onnxruntime', target: { engine: 'onnx-cpu' }, summary: { experiment: { design: 'interleaved' }, verdict: { headline: verdict } } })
    expect(s.combos).toHaveLength(4)
    for (const c of s.combos) {
      expect(c.repetitions).toHaveLength(3)
      for (const rep of c.repetitions) expect(rep.decodeTps).toBeGreaterThan(0)
    }
    expect(r.code === 0).toBe(s.run.summary.verdict.kind === 'winner')
    // The stored engine is the registered CPU plugin: every stored combination translates with it.
    const combo = s.combos.find((c: { isBaseline: boolean }) => !c.isBaseline).combo
    const t = await runMain(['translate', '--engine', s.run.target.engine, '--combo', JSON.stringify(combo), '--json'], dir)
    expect([t.code, t.err]).toEqual([0, ''])
    expect(JSON.parse(t.out).files['session_options.json']).toBeDefined()

    // Tier 2 on the stored run: a tune session measures trials with the run's backend (real ORT
    // sessions) and the registered CPU plugin; --keep searches both dimensions whatever the run found.
    const tune = await run('tune', 'start', runId, '--trials', '2', '--strategy', 'random', '--keep', 'ort_intra_op_threads,ort_matmulnbits_accuracy', '--json')
    expect(tune.code, tune.err).toBe(0)
    const session = JSON.parse(tune.out)
    expect(session, JSON.stringify(session.error)).toMatchObject({ runId, status: 'completed', trialsDone: 2, narrowing: { engine: 'onnx-cpu' } })
    expect(session.trials).toHaveLength(2)
    for (const t of session.trials) {
      expect(t.outcome).toBe('ok')
      expect(t.metrics).toMatchObject({ simulated: false, device: expect.stringMatching(/ONNX Runtime 1\.\d+\.\d+ \(onnxruntime-node, CPU execution provider\)/) })
    }
  }, 300_000)

  it('should sweep a given --onnx file, its shape read from the graph for the run and the prediction, and refuse a file that is not one', async () => {
    const file = join(dir, 'cache', 'onnx', readdirSync(join(dir, 'cache', 'onnx')).find((f) => f.endsWith('.onnx'))!)
    const r = await run('sweep', '--engine', 'onnx', '--onnx', file, ...SMALL.slice(4), '--design', 'sequential', '--reps', '2', '--json')
    expect([0, 3], r.err).toContain(r.code)
    const j = JSON.parse(r.out)
    expect(j.model).toMatchObject({ path: file, synthesized: false, spec: { numLayers: 4, vocabSize: 320, quant: 'Q4_0' } })
    expect(j.roofline).toMatchObject({ kind: 'prediction' })
    const bad = await run('sweep', '--engine', 'onnx', '--onnx', '/etc/hostname')
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/not an ONNX model|no present\.\{i\}\.key outputs/)
  }, 300_000)

  it('should answer --json with the verdict, the recommended session options and the prediction, sequentially, reusing the cached model', async () => {
    const r = await run('sweep', '--engine', 'onnx', ...SMALL, '--design', 'sequential', '--reps', '2', '--json')
    expect([0, 3], r.err).toContain(r.code)
    expect(r.err).toMatch(/using the synthesized model/)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ ok: true, engine: 'onnx', backend: 'onnxruntime', design: 'sequential', measured: true, simulated: false, model: { synthesized: true, spec: { architecture: 'llama', quant: 'Q4_0' } } })
    expect(j.combos).toHaveLength(3)
    expect(j.baseline.reps).toHaveLength(2)
    expect(j.verdict.kind === 'winner').toBe(r.code === 0)
    expect(j.roofline).toMatchObject({ kind: 'prediction', decode: { binding: expect.stringMatching(/memory|compute/) } })
    expect(j.roofline.decode.measuredDefaultsTps).toBeGreaterThan(0)
    expect(j.roofline.decode.boundTps).toBeGreaterThan(0)
    expect(j.roofline.decode.fraction).toBeCloseTo(j.roofline.decode.measuredDefaultsTps / j.roofline.decode.boundTps, 6)
    if (j.verdict.kind === 'winner') expect(Object.keys(j.recommended.combo).length).toBeGreaterThan(0)
    else expect(j.recommended).toEqual({ combo: {}, sessionOptions: {} })
  }, 300_000)

  it('should refuse mismatched engines, backends and dimensions as usage errors', async () => {
    expect((await run('sweep', '--backend', 'onnxruntime', '--gguf', 'x.gguf')).code).toBe(2)
    expect((await run('sweep', '--engine', 'onnx', '--backend', 'server')).code).toBe(2)
    const bad = await run('sweep', '--engine', 'onnx', '--space', '{"threads":["1"]}')
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/no dimension threads/)
  })
})
