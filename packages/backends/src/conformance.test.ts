import { describe, expect, it } from 'vitest'
import { KerneltuneError, type MeasurementBackend, type MeasurementRequest } from '@kerneltune/core'
import { analyticalBackend } from './analytical.ts'
import { checkMeasurementBackend } from './conformance.ts'
import { CONFORMANCE_REQUEST } from './test-fixtures.ts'


/** A backend that conforms, for breaking one rule at a time. */
const good = (over: Partial<MeasurementBackend> = {}, result: (r: MeasurementRequest) => object = () => ({})): MeasurementBackend => ({
  name: 'fixture', kind: 'measurement-backend', apiVersion: 1, simulated: true,
  async measure(r) {
    const repetitions = []
    for (let i = 0; i < r.repetitions; i++) {
      if (r.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the measurement was cancelled')
      repetitions.push({ latencyMs: 1 })
      r.onProgress?.(i + 1, r.repetitions)
    }
    return { backend: 'fixture', simulated: true, device: 'a model of nothing (simulated)', repetitions, ...result(r) }
  },
  ...over,
})

describe('checkMeasurementBackend', () => {
  it('should pass the analytical backend, with every check run', async () => {
    const report = await checkMeasurementBackend(analyticalBackend(), CONFORMANCE_REQUEST)
    expect(report).toEqual({ problems: [], notRun: [], device: 'roofline of NVIDIA H100 SXM (simulated, nothing was run)' })
  })

  it('should pass a conforming fixture and name each broken rule of a broken one', async () => {
    expect((await checkMeasurementBackend(good(), CONFORMANCE_REQUEST)).problems).toEqual([])
    const problems = async (b: MeasurementBackend) => (await checkMeasurementBackend(b, CONFORMANCE_REQUEST)).problems.join('\n')
    expect(await problems(good({}, () => ({ repetitions: [{ latencyMs: 1 }] })))).toMatch(/asked for 2 repetitions, got 1: return every repetition/)
    expect(await problems(good({}, () => ({ simulated: false })))).toMatch(/simulated backend returned a result not labelled simulated/)
    expect(await problems(good({}, () => ({ device: '' })))).toMatch(/result\.device is empty/)
    expect(await problems(good({}, () => ({ backend: 'other' })))).toMatch(/not the plugin's name/)
    expect(await problems(good({}, (r) => ({ repetitions: Array.from({ length: r.repetitions }, () => ({ latencyMs: Number.NaN })) })))).toMatch(/latencyMs NaN is not a positive number/)
  })

  it('should check the optional descriptions: device(), proxy and exercises', async () => {
    const text = async (over: Partial<MeasurementBackend>) => (await checkMeasurementBackend(good(over), CONFORMANCE_REQUEST)).problems.join('\n')
    expect(await text({ device: async () => 'a model of nothing' })).toBe('')
    expect(await text({ device: async () => 'another device' })).toMatch(/device\(\) says "another device" but results say/)
    expect(await text({ proxy: { engine: true, device: true } })).toMatch(/simulated backend is a prediction, not a proxy/)
    expect(await text({ exercises: [''] })).toMatch(/exercises must list dimension ids/)
    expect(await text({ ignores: [''] })).toMatch(/ignores must list dimension ids/)
    expect(await text({ exercises: ['parallel'], ignores: ['parallel'] })).toMatch(/both exercised and ignored/)
  })

  it('should catch a backend that ignores abort, or crashes instead of refusing', async () => {
    const deaf: MeasurementBackend = good({
      async measure(r) {
        for (let i = 0; i < r.repetitions; i++) r.onProgress?.(i + 1, r.repetitions)
        return { backend: 'fixture', simulated: true, device: 'x (simulated)', repetitions: Array.from({ length: r.repetitions }, () => ({ latencyMs: 1 })) }
      },
    })
    const text = (await checkMeasurementBackend(deaf, CONFORMANCE_REQUEST)).problems.join('\n')
    expect(text).toMatch(/already-aborted request was measured/)
    expect(text).toMatch(/aborted from its first progress report ran to the end/)
    const crashing = good({
      async measure(r) {
        if (!r.model) throw new TypeError('cannot read properties of undefined')
        return good().measure(r)
      },
    })
    expect((await checkMeasurementBackend(crashing, CONFORMANCE_REQUEST)).problems.join('\n')).toMatch(/crashed with TypeError/)
  })

  it('should not measure an unavailable backend, and ask it for a reason', async () => {
    const none = await checkMeasurementBackend(good({ available: () => ({ ok: false, reason: 'no device' }) }), CONFORMANCE_REQUEST)
    expect(none).toEqual({ problems: [], notRun: ['measuring checks: the backend is not available here (no device)'] })
    expect((await checkMeasurementBackend(good({ available: () => ({ ok: false }) }), CONFORMANCE_REQUEST)).problems).toEqual([expect.stringMatching(/without a reason/)])
  })

  it('should refuse a plugin the registry refuses', async () => {
    const report = await checkMeasurementBackend({ ...good(), apiVersion: 9 } as MeasurementBackend, CONFORMANCE_REQUEST)
    expect(report.problems).toEqual([expect.stringMatching(/registry refuses the plugin: INCOMPATIBLE_PLUGIN/)])
  })
})
