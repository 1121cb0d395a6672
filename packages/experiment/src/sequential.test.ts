import { describe, expect, it } from 'vitest'
import type { RepetitionMetrics } from '@kerneltune/core'
import { compareWithBaseline, measureWithEarlyStop } from './sequential.ts'

/** Repetitions of a fixed speed with a small alternating wobble; records the chunk sizes asked for. */
function chunks(speed: number, wobble = 0.001) {
  const asked: [number, number][] = []
  let i = 0
  const measure = async (n: number, warmups: number): Promise<RepetitionMetrics[]> => {
    asked.push([n, warmups])
    return Array.from({ length: n }, () => ({ latencyMs: 1, decodeTps: speed * (1 + (i++ % 2 ? wobble : -wobble)) }))
  }
  return { asked, measure }
}

const samples = (reps: readonly RepetitionMetrics[]) => reps.map((r) => r.decodeTps!)
const rule = { maxReps: 9, firstChunk: 3, step: 2, warmups: 1, earlyStop: true, samples, higherIsBetter: true, noiseFloor: 0.05 }

describe('measureWithEarlyStop', () => {
  it('should measure a combination without rivals (the baseline) in one chunk of the maximum', async () => {
    const c = chunks(100)
    const r = await measureWithEarlyStop({ ...rule, id: 'baseline', measure: c.measure, rivals: [] })
    expect([c.asked, r.reps.length, r.stoppedEarly]).toEqual([[[9, 1]], 9, undefined])
  })

  it('should stop once the ranking against its rivals is settled, after the first chunk', async () => {
    const c = chunks(300)
    const r = await measureWithEarlyStop({ ...rule, id: 'combo', measure: c.measure, rivals: [{ id: 'baseline', samples: [100, 101, 99] }] })
    expect(c.asked).toEqual([[3, 1]])
    expect(r.stoppedEarly).toMatch(/^after 3 of 9 repetitions: combo: 95% interval/)
  })

  it('should add `step` repetitions while the ranking is open, warm-ups only before the first chunk, up to the maximum', async () => {
    const c = chunks(100, 0.2)
    const r = await measureWithEarlyStop({ ...rule, id: 'combo', measure: c.measure, rivals: [{ id: 'baseline', samples: [100, 120, 80] }] })
    expect(c.asked).toEqual([[3, 1], [2, 0], [2, 0], [2, 0]])
    expect([r.reps.length, r.stoppedEarly]).toEqual([9, undefined])
  })

  it('should fail a backend that returns no repetitions, and stop when cancelled', async () => {
    await expect(measureWithEarlyStop({ ...rule, id: 'c', measure: async () => [], rivals: [] })).rejects.toThrow(/no repetitions/)
    const ctl = new AbortController()
    ctl.abort()
    await expect(measureWithEarlyStop({ ...rule, id: 'c', measure: chunks(1).measure, rivals: [], signal: ctl.signal })).rejects.toMatchObject({ code: 'CANCELLED' })
  })
})

describe('compareWithBaseline', () => {
  it('should compare two samples and give nothing with fewer than 2 on either side', () => {
    expect(compareWithBaseline([200, 201, 199], [100, 101, 99], { higherIsBetter: true })?.verdict).toBe('better')
    expect(compareWithBaseline([200], [100, 101], { higherIsBetter: true })).toBeUndefined()
  })
})
