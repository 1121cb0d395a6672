import { describe, expect, it } from 'vitest'
import { kernelNameFor } from './kernel-config.ts'
import { createKernelConfig } from './kernel-config.ts'
import { MixedBpwAutoTuner } from './tuner.ts'

const BASE = kernelNameFor('base', false)
const DECODE = kernelNameFor('decode', false)
const PREFILL = kernelNameFor('prefill', false)

function tunerWithEntry() {
  const t = new MixedBpwAutoTuner({ deviceName: 'test' })
  t.setLookup(4, 4096, [2, 4], createKernelConfig({ bit_width: 2, tile_size_m: 128, tile_size_n: 128, num_simdgroups: 16 }))
  return t
}

describe('recordLatency', () => {
  it('should key plain and contextual samples like upstream', () => {
    const t = new MixedBpwAutoTuner()
    expect(t.recordLatency('k', 4, 1.5)).toBe('k_bs4')
    expect(t.recordLatency('k', 4, 1.5, 4096, [4, 2])).toBe('k_bs4_hd4096_bits(2, 4)')
    expect(t.recordLatency('k', 1, 1.5, 4096, [4])).toBe('k_bs1_hd4096_bits(4,)')
    expect(t.adaptationTimings.get('k_bs4')).toEqual([1.5])
    expect(() => t.recordLatency('k', 4, Number.NaN)).toThrow(/finite/)
  })

  it('should keep only the last adaptationHistoryLen samples', () => {
    const t = new MixedBpwAutoTuner({ historyLength: 5 })
    for (let i = 0; i < 10; i++) t.recordLatency('k', 1, i)
    expect(t.adaptationTimings.get('k_bs1')).toEqual([5, 6, 7, 8, 9])
  })
})

describe('adaptSelection', () => {
  it('should return null with no history or fewer than 5 samples', () => {
    const t = tunerWithEntry()
    expect(t.adaptSelection(4, 4096, [2, 4])).toBeNull()
    for (let i = 0; i < 4; i++) t.recordLatency(PREFILL, 4, 1, 4096, [2, 4])
    expect(t.adaptSelection(4, 4096, [2, 4])).toBeNull()
  })

  it('should return the table config once a context has 5 samples', () => {
    const t = tunerWithEntry()
    for (let i = 0; i < 5; i++) t.recordLatency(BASE, 4, 1, 4096, [2, 4])
    const a = t.adaptSelection(4, 4096, [2, 4])!
    expect(a.switched).toBe(false)
    expect(a.config.tile_size_m).toBe(128)
    expect(a.ranking).toEqual([{ kernel_name: BASE, mean_ms: 1, samples: 5 }])
  })

  it('should return null with samples but no table entry (no fallback)', () => {
    const t = new MixedBpwAutoTuner()
    for (let i = 0; i < 5; i++) t.recordLatency(BASE, 4, 1, 4096, [2, 4])
    expect(t.adaptSelection(4, 4096, [2, 4])).toBeNull()
  })

  it('should keep the table kernel inside the topK band and switch outside it', () => {
    const t = tunerWithEntry()
    const times: [string, number][] = [[DECODE, 1], [PREFILL, 2], [kernelNameFor('large_batch', true), 3], [BASE, 4]]
    for (const [name, ms] of times) for (let i = 0; i < 5; i++) t.recordLatency(name, 4, ms, 4096, [2, 4])
    // BASE ranks 4th: kept with topK 4, replaced by the fastest (decode) with topK 3 or 1.
    expect(t.adaptSelection(4, 4096, [2, 4], 4)!.switched).toBe(false)
    const a = t.adaptSelection(4, 4096, [2, 4], 3)!
    expect(a.switched).toBe(true)
    expect(a.from).toBe(BASE)
    expect(a.config).toMatchObject({ kernel_variant: 'decode', kernel_name: DECODE, tile_size_m: 128, num_simdgroups: 16, bit_width: 2 })
    expect(a.ranking.map((r) => r.kernel_name)).toEqual([DECODE, PREFILL, kernelNameFor('large_batch', true)])
    expect(t.adaptSelection(4, 4096, [2, 4], 1)!.ranking).toHaveLength(1)
    expect(() => t.adaptSelection(4, 4096, [2, 4], 0)).toThrow(/topK/)
  })

  it('should not switch on kernels with fewer than 5 samples', () => {
    const t = tunerWithEntry()
    for (let i = 0; i < 5; i++) t.recordLatency(BASE, 4, 10, 4096, [2, 4])
    for (let i = 0; i < 4; i++) t.recordLatency(DECODE, 4, 1, 4096, [2, 4])
    expect(t.adaptSelection(4, 4096, [2, 4], 1)!.switched).toBe(false)
    t.recordLatency(DECODE, 4, 1, 4096, [2, 4])
    expect(t.adaptSelection(4, 4096, [2, 4], 1)!.switched).toBe(true)
  })

  it('should ignore samples of other contexts', () => {
    const t = tunerWithEntry()
    for (let i = 0; i < 5; i++) t.recordLatency(BASE, 4, 1, 2048, [2, 4])
    for (let i = 0; i < 5; i++) t.recordLatency(BASE, 8, 1, 4096, [2, 4])
    expect(t.adaptSelection(4, 4096, [2, 4])).toBeNull()
  })

  it('should clear the history', () => {
    const t = tunerWithEntry()
    for (let i = 0; i < 5; i++) t.recordLatency(BASE, 4, 1, 4096, [2, 4])
    t.clearAdaptationHistory()
    expect(t.adaptationTimings.size).toBe(0)
    expect(t.adaptSelection(4, 4096, [2, 4])).toBeNull()
  })
})
