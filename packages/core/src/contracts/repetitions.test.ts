import { describe, expect, it } from 'vitest'
import { isKerneltuneError } from '../errors.ts'
import { generationMetrics, runRepetitions } from './repetitions.ts'

describe('runRepetitions', () => {
  it('should run the warm-ups unrecorded, record the repetitions and report every call', async () => {
    const progress: [number, number][] = []
    const reps = await runRepetitions({ combo: {}, warmups: 2, repetitions: 3, onProgress: (d, t) => progress.push([d, t]) }, async (i) => ({ latencyMs: i }))
    expect(reps.map((r) => r.latencyMs)).toEqual([2, 3, 4])
    expect(progress).toEqual([[1, 5], [2, 5], [3, 5], [4, 5], [5, 5]])
  })

  it('should stop with CANCELLED before the next call once the signal is aborted', async () => {
    const controller = new AbortController()
    let calls = 0
    const err = await runRepetitions({ combo: {}, warmups: 0, repetitions: 5, signal: controller.signal }, async () => {
      if (++calls === 2) controller.abort()
      return { latencyMs: 1 }
    }).then(() => undefined, (e: unknown) => e)
    expect(isKerneltuneError(err) && err.code).toBe('CANCELLED')
    expect(calls).toBe(2)
  })
})

describe('generationMetrics', () => {
  it('should time decode between the first and the last token, and TTFT and latency from the start', () => {
    const m = generationMetrics({ promptTokens: 100, prefillMs: 50, startMs: 1000, firstMs: 1060, lastMs: 1160, tokens: 11, peakBytes: 500, baselineBytes: 200 })
    expect(m).toEqual({
      latencyMs: 160,
      ttftMs: 60,
      prefillTps: 2000,
      decodeTps: 100,
      throughputTps: (11 / 160) * 1000,
      peakMemoryBytes: 300,
      breakdown: { prefillMs: 50, decodeMs: 100 },
    })
    // Memory below the baseline (the collector ran) is no memory used, not a negative amount.
    expect(generationMetrics({ promptTokens: 1, prefillMs: 1, startMs: 0, firstMs: 1, lastMs: 2, tokens: 2, peakBytes: 100, baselineBytes: 200 }).peakMemoryBytes).toBe(0)
  })
})
