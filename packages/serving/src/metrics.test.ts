import { describe, expect, it } from 'vitest'
import { computeServingMetrics, tpotOf } from './metrics.ts'
import type { RequestRecord } from './request.ts'

const rec = (startMs: number, ttftMs: number, itlMs: number[], outputTokens: number, promptTokens = 10): RequestRecord => ({
  ok: true,
  startMs,
  ttftMs,
  itlMs,
  e2eMs: ttftMs + itlMs.reduce((a, b) => a + b, 0),
  outputTokens,
  promptTokens,
  tokenSource: 'usage',
})

describe('computeServingMetrics', () => {
  it('should compute TPOT per request as (e2e - ttft) / (output tokens - 1)', () => {
    expect(tpotOf(rec(0, 100, [10, 20, 30], 4))).toBe(20)
    expect(tpotOf(rec(0, 100, [], 1))).toBeUndefined()
  })

  it('should pool ITL over every chunk gap of every request and count throughput over the whole run', () => {
    const m = computeServingMetrics([rec(0, 100, [10, 10], 3), rec(50, 200, [30], 2)])
    expect(m.itlMs.count).toBe(3)
    expect(m.itlMs.mean).toBeCloseTo(50 / 3, 12)
    // The run spans 0 → 280 ms (second request: 50 + 200 + 30).
    expect(m.durationS).toBeCloseTo(0.28, 12)
    expect(m.requestThroughput).toBeCloseTo(2 / 0.28, 9)
    expect(m.outputTokensPerSecond).toBeCloseTo(5 / 0.28, 9)
    expect(m.totalTokensPerSecond).toBeCloseTo(25 / 0.28, 9)
    expect(m.ttftMs.p50).toBe(150)
  })

  it('should count goodput as requests per second meeting every objective', () => {
    const records = [rec(0, 100, [10], 2), rec(0, 300, [10], 2), rec(0, 100, [90], 2)]
    const m = computeServingMetrics(records, { ttftMs: 200, tpotMs: 50 })
    expect(m.goodput?.met).toBe(1)
    expect(m.goodput?.requestsPerSecond).toBeCloseTo(1 / m.durationS, 9)
    expect(computeServingMetrics(records).goodput).toBeUndefined()
  })

  it('should keep failed requests out of the latencies and list their errors', () => {
    const failed: RequestRecord = { ok: false, error: 'HTTP 500: boom', startMs: 0, e2eMs: 5, itlMs: [] }
    const m = computeServingMetrics([rec(0, 100, [10], 2), failed, failed])
    expect(m.requests).toEqual({ completed: 1, failed: 2 })
    expect(m.e2eMs.count).toBe(1)
    expect(m.errors).toEqual([{ message: 'HTTP 500: boom', count: 2 }])
  })
})
