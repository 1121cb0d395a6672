import { describe, expect, it } from 'vitest'
import { KerneltuneError } from '@kerneltune/core/lite'
import { sequentialLoop } from './sequential-loop.ts'

const rep = (v: number) => ({ latencyMs: 1000 / v, decodeTps: v })
const arm = (id: string) => ({ combo: { threads: id }, hash: id })

describe('sequentialLoop', () => {
  it('should measure the baseline first, then each candidate in order, keep stored results unmeasured, and record a failing candidate as a result', async () => {
    const steps: [string, number | undefined][] = []
    const told: [string, boolean][] = []
    const r = await sequentialLoop({
      baseline: arm('b'), candidates: [arm('1'), arm('2'), arm('3')],
      done: new Map([['2', { ...arm('2'), reps: [rep(7)] }]]),
      step: async (c, base) => {
        steps.push([c.hash, base?.length])
        if (c.hash === '3') throw new Error('refused at run time')
        return { reps: [rep(10), rep(11)] }
      },
      onMeasured: (m, isBaseline) => void told.push([m.hash, isBaseline]),
    })
    expect(steps).toEqual([['b', undefined], ['1', 2], ['3', 2]])
    expect(told).toEqual([['b', true], ['1', false], ['3', false]])
    expect(r.measured.map((m) => [m.hash, m.reps.length, m.error])).toEqual([['1', 2, undefined], ['2', 1, undefined], ['3', 0, 'refused at run time']])
  })

  it('should end at a failing baseline and at a cancellation: nothing can be compared without the one, and the other is asked for', async () => {
    await expect(sequentialLoop({ baseline: arm('b'), candidates: [arm('1')], step: async () => { throw new Error('no defaults') } })).rejects.toThrow('no defaults')
    const cancelled = sequentialLoop({ baseline: arm('b'), candidates: [arm('1'), arm('2')], step: async (c) => { if (c.hash === '1') throw new KerneltuneError('CANCELLED', 'cancelled'); return { reps: [rep(1)] } } })
    await expect(cancelled).rejects.toMatchObject({ code: 'CANCELLED' })
  })
})
