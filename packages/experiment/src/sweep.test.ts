import { describe, expect, it } from 'vitest'
import { CONTRACT_VERSIONS, type Combo, type MeasurementBackend, type MeasurementRequest, type RepetitionMetrics } from '@kerneltune/core'
import { analyzeSweep } from './sweep-analysis.ts'
import { llamacppEngine, llamacppServerEngine, withoutDefaults, withoutServingDefaults } from '@kerneltune/engines-llamacpp'
import { runSweep, sweepComboHash } from './sweep.ts'

// The design is engine-neutral; these tests run it over llama.cpp's translator and defaults.
const LLAMA = { engine: llamacppEngine(), withoutDefaults }

/**
 * A scripted backend for the sweep's logic: decode speed is a function of the combo plus seeded
 * noise, so the test knows which combo is truly fastest. The real llama.cpp sweep is in
 * sweep.node.test.ts.
 */
function scripted(speed: (c: Combo) => number, noise = 0.01, fail?: (c: Combo) => boolean) {
  let seed = 7
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5
  const calls: MeasurementRequest[] = []
  const backend: MeasurementBackend = {
    name: 'scripted',
    kind: 'measurement-backend',
    apiVersion: CONTRACT_VERSIONS['measurement-backend'],
    description: 'test double',
    simulated: true,
    async measure(request) {
      calls.push(request)
      if (fail?.(request.combo)) throw new Error('llama.cpp refused')
      const reps: RepetitionMetrics[] = Array.from({ length: request.repetitions }, () => {
        const d = speed(request.combo) * (1 + noise * rand())
        return { latencyMs: 1000 / d, decodeTps: d, prefillTps: 1000 * (1 + noise * rand()), ttftMs: 10 * (1 + noise * rand()) }
      })
      return { backend: 'scripted', simulated: true, device: 'test', repetitions: reps }
    },
  }
  return { backend, calls }
}

const bySpeed = (c: Combo) => (c.threads === '1' ? 300 : c.threads === '2' ? 8 : 100) * (c.flash_attn === 'off' ? 0.9 : 1)

describe('runSweep', () => {
  it('should pick the truly fastest combo, compare it to the defaults and give its llama-server command line', async () => {
    const { backend } = scripted(bySpeed)
    const candidates = ([{ threads: '1' }, { threads: '2' }, { threads: '1', flash_attn: 'off' }] as Combo[]).map((combo) => ({ combo }))
    const r = await runSweep({ ...LLAMA, backend, candidates, model: 'm.gguf', maxReps: 5 })
    expect(r.winner?.combo).toEqual({ threads: '1' })
    expect(r.winner?.argv).toEqual(['llama-server', '-m', 'm.gguf', '--threads', '1'])
    expect(r.recommendedArgv).toEqual(r.winner?.argv)
    const cmp = r.winner!.comparison.decodeTps!
    expect([cmp.verdict, cmp.improvement > 1.5, cmp.cohensD > 0]).toEqual(['better', true, true])
    expect(r.gate.method).toBe('regression')
    expect(r.baseline.reps).toHaveLength(5)
    expect(r.combos.find((c) => c.combo.threads === '2')!.comparison.decodeTps!.verdict).toBe('worse')
  })

  it('should give a server-settings winner its command line through the engine it is given', async () => {
    // parallel is llama-server's own setting: the plain llama.cpp translator has no such dimension.
    const { backend } = scripted((c) => (c.parallel === '1' ? 200 : 100))
    const candidates: { combo: Combo }[] = [{ combo: { parallel: '1' } }, { combo: { parallel: 'auto', cont_batching: 'on' } }]
    const r = await runSweep({ ...LLAMA, backend, candidates, model: 'm.gguf', engine: llamacppServerEngine(), withoutDefaults: withoutServingDefaults })
    expect(r.combos).toHaveLength(1) // the second candidate is the defaults spelled out
    expect(r.recommendedArgv).toEqual(['llama-server', '-m', 'm.gguf', '--parallel', '1'])
    await expect(runSweep({ ...LLAMA, backend, candidates, model: 'm.gguf' })).rejects.toThrow(/could not translate the measured combo/)
  })

  it('should stop a combo early once its ranking is settled, and measure all reps without early stopping', async () => {
    const a = scripted(bySpeed, 0.002)
    const early = await runSweep({ ...LLAMA, backend: a.backend, candidates: [{ combo: { threads: '1' } }, { combo: { threads: '2' } }], maxReps: 10, minReps: 3 })
    expect(early.combos.every((c) => c.reps.length === 3 && c.stoppedEarly !== undefined)).toBe(true)
    const b = scripted(bySpeed, 0.002)
    const full = await runSweep({ ...LLAMA, backend: b.backend, candidates: [{ combo: { threads: '1' } }], maxReps: 6, earlyStop: false })
    expect(full.combos[0]!.reps).toHaveLength(6)
    expect(full.combos[0]!.stoppedEarly).toBeUndefined()
  })

  it('should keep the defaults when nothing beats them', async () => {
    const { backend } = scripted(() => 100, 0.05)
    const r = await runSweep({ ...LLAMA, backend, candidates: [{ combo: { threads: '1' } }, { combo: { flash_attn: 'off' } }], maxReps: 4 })
    expect(r.winner).toBeUndefined()
    expect(r.verdict).toMatch(/keep the defaults/)
    expect(r.recommendedArgv).toEqual(['llama-server', '-m', '<model.gguf>'])
  })

  it('should record a combo llama.cpp refuses and go on', async () => {
    const { backend } = scripted(bySpeed, 0.01, (c) => c.cache_type_v === 'q4_0')
    const r = await runSweep({ ...LLAMA, backend, candidates: [{ combo: { cache_type_v: 'q4_0' } }, { combo: { threads: '1' } }], maxReps: 3 })
    expect(r.combos[0]!.error).toMatch(/refused/)
    expect(r.combos[0]!.reps).toHaveLength(0)
    expect(r.winner?.combo).toEqual({ threads: '1' })
  })

  it('should measure a combo that runs as the defaults only once, as the baseline', async () => {
    const { backend, calls } = scripted(bySpeed)
    const r = await runSweep({ ...LLAMA, backend, candidates: [{ combo: { threads: 'auto', flash_attn: 'auto' } }, { combo: { threads: '1' } }, { combo: { threads: '1', batch_size: '2048' } }], maxReps: 3, earlyStop: false })
    expect(r.combos.map((c) => c.combo)).toEqual([{ threads: '1' }])
    expect(calls).toHaveLength(2)
  })

  it('should report each combination as measured, and on a resume keep the results it is given without measuring them again', async () => {
    const first = scripted(bySpeed)
    const told: [string, boolean][] = []
    const candidates: { combo: Combo }[] = [{ combo: { threads: '1' } }, { combo: { threads: '2' } }, { combo: { flash_attn: 'off' } }]
    const full = await runSweep({ ...LLAMA, backend: first.backend, candidates, maxReps: 3, earlyStop: false, onMeasured: (m, isBaseline) => void told.push([JSON.stringify(m.combo), isBaseline]) })
    expect(told).toEqual([['{}', true], ['{"threads":"1"}', false], ['{"threads":"2"}', false], ['{"flash_attn":"off"}', false]])
    // As if the process died after the baseline and the first combination: those two are kept.
    const done = new Map([full.baseline, full.combos[0]!].map((m) => [m.hash, { combo: m.combo, hash: m.hash, reps: m.reps }]))
    const second = scripted(bySpeed)
    const resumed = await runSweep({ ...LLAMA, backend: second.backend, candidates, maxReps: 3, earlyStop: false, done })
    expect(second.calls.map((c) => c.combo)).toEqual([{ threads: '2' }, { flash_attn: 'off' }])
    expect(resumed.baseline.reps).toEqual(full.baseline.reps)
    expect(resumed.combos[0]!.reps).toEqual(full.combos[0]!.reps)
    expect(resumed.winner?.combo).toEqual({ threads: '1' })
  })

  it('should refuse fewer than 2 repetitions', async () => {
    const { backend } = scripted(bySpeed)
    await expect(runSweep({ ...LLAMA, backend, candidates: [], maxReps: 1 })).rejects.toThrow(/at least 2/)
  })
})

describe('analyzeSweep', () => {
  const reps = (xs: number[]): RepetitionMetrics[] => xs.map((d) => ({ latencyMs: 1, decodeTps: d, prefillTps: 100, ttftMs: 5 }))
  const base = { combo: {}, hash: 'b', reps: reps([100, 101, 99, 100]) }

  it('should fail the regression gate for a decode winner that makes prefill much worse, and pick the next one', () => {
    const slowPrefill = { combo: { threads: '1' }, hash: 'x', reps: reps([200, 201, 199, 200]).map((r) => ({ ...r, prefillTps: 50 })) }
    const fine = { combo: { threads: '2' }, hash: 'y', reps: reps([150, 151, 149, 150]) }
    const r = analyzeSweep(base, [slowPrefill, fine])
    expect(r.combos[0]!.gate?.passed).toBe(false)
    expect(r.winner?.hash).toBe('y')
  })

  it('should apply the topk5 margin when asked', () => {
    const small = { combo: { threads: '1' }, hash: 'x', reps: reps([103, 103.5, 102.5, 103]) }
    expect(analyzeSweep(base, [small], { gate: 'regression' }).winner?.hash).toBe('x')
    expect(analyzeSweep(base, [small], { gate: 'topk5' }).winner).toBeUndefined()
  })
})

describe('sweepComboHash', () => {
  it('should hash combos independently of key order', () => {
    expect(sweepComboHash({ a: '1', b: '2' })).toBe(sweepComboHash({ b: '2', a: '1' }))
    expect(sweepComboHash({ a: '1' })).not.toBe(sweepComboHash({ a: '2' }))
  })
})
