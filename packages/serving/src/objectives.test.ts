import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { computeServingMetrics } from './metrics.ts'
import {
  candidateMetricsOf,
  decide,
  describeViolation,
  evaluate,
  formatSlo,
  paretoAxes,
  paretoFront,
  parseObjective,
  parseSlo,
  rankCandidates,
  requestMeets,
  SLO_NAMES,
  sloGoodput,
  type CandidateMetrics,
} from './objectives.ts'
import { recordLine } from './records.ts'
import type { RequestRecord } from './request.ts'
import { summarize } from './summary.ts'

const rec = (startMs: number, ttftMs: number, itlMs: number[], outputTokens = itlMs.length + 1): RequestRecord => ({
  ok: true,
  startMs,
  ttftMs,
  itlMs,
  e2eMs: ttftMs + itlMs.reduce((a, b) => a + b, 0),
  outputTokens,
  tokenSource: 'usage',
})

/** A candidate whose every latency distribution is the given values. */
const cand = (o: { ttft?: number[]; tpot?: number[]; rps?: number; tps?: number; failed?: number; goodput?: number }): CandidateMetrics => ({
  requests: { completed: (o.ttft ?? [1]).length, failed: o.failed ?? 0 },
  ttftMs: summarize(o.ttft ?? [1]),
  tpotMs: summarize(o.tpot ?? [1]),
  itlMs: summarize(o.tpot ?? [1]),
  e2eMs: summarize(o.ttft ?? [1]),
  requestThroughput: o.rps ?? 1,
  outputTokensPerSecond: o.tps ?? 10,
  ...(o.goodput === undefined ? {} : { goodput: { requestsPerSecond: o.goodput, met: 1 } }),
})

describe('parseSlo', () => {
  it('should parse every metric at every statistic, in the order stated', () => {
    expect(parseSlo('ttft_p99_ms=500, tpot_p99_ms=50')).toEqual([
      { name: 'ttft_p99_ms', metric: 'ttft', stat: 'p99', limitMs: 500 },
      { name: 'tpot_p99_ms', metric: 'tpot', stat: 'p99', limitMs: 50 },
    ])
    expect(SLO_NAMES).toHaveLength(20)
    for (const n of SLO_NAMES) expect(parseSlo(`${n}=1.5`)[0]).toMatchObject({ name: n, limitMs: 1.5 })
    expect(formatSlo(parseSlo('itl_mean_ms=20,e2e_p90_ms=3000'))).toBe('itl_mean_ms=20,e2e_p90_ms=3000')
  })

  it('should refuse an unknown name with a typed error that lists the accepted names', () => {
    let err: unknown
    try {
      parseSlo('ttft_p98_ms=500')
    } catch (e) {
      err = e
    }
    expect(err).toMatchObject({ code: 'INVALID_INPUT' })
    expect((err as Error).message).toMatch(/unknown latency objective 'ttft_p98_ms'; accepted: ttft_mean_ms, ttft_p50_ms, .*e2e_p99_ms/)
  })

  it('should refuse a missing, zero, negative or non-numeric limit, a repeated name and an empty list', () => {
    for (const bad of ['ttft_p99_ms', 'ttft_p99_ms=', 'ttft_p99_ms=0', 'ttft_p99_ms=-3', 'ttft_p99_ms=abc', 'ttft_p99_ms=1,ttft_p99_ms=2', '', ' , ']) {
      // One argument to expect(): the Deno shim's expect takes no message.
      let err: unknown
      try {
        parseSlo(bad)
      } catch (e) {
        err = e
      }
      expect({ bad, code: (err as { code?: string } | undefined)?.code }).toEqual({ bad, code: 'INVALID_INPUT' })
    }
  })

  it('should read back what formatSlo writes (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...SLO_NAMES), { minLength: 1, maxLength: 6 }), fc.array(fc.integer({ min: 1, max: 100000 }), { minLength: 6, maxLength: 6 }), (names, limits) => {
        const slo = parseSlo(names.map((n, i) => `${n}=${limits[i]}`).join(','))
        expect(parseSlo(formatSlo(slo))).toEqual(slo)
      }),
    )
  })
})

describe('parseObjective', () => {
  it('should take the throughputs (maximised) and any latency statistic (minimised)', () => {
    expect(parseObjective('goodput')).toEqual({ kind: 'throughput', name: 'goodput', direction: 'max' })
    expect(parseObjective('requestThroughput').direction).toBe('max')
    expect(parseObjective('tpot_p90_ms')).toMatchObject({ kind: 'latency', metric: 'tpot', stat: 'p90', direction: 'min' })
    expect(() => parseObjective('decodeTps')).toThrow(/unknown objective 'decodeTps'; accepted: goodput, outputTokensPerSecond, requestThroughput, ttft_mean_ms/)
  })
})

describe('goodput under objectives (vLLM definition)', () => {
  it('should count the requests meeting every objective, per request, per second of the run', () => {
    // TPOTs: 10, 10, 90 ms; TTFTs: 100, 300, 100.
    const records = [rec(0, 100, [10]), rec(0, 300, [10]), rec(0, 100, [90])]
    const slo = parseSlo('ttft_p99_ms=200,tpot_p99_ms=50')
    expect(records.map((r) => requestMeets(r, slo))).toEqual([true, false, false])
    expect(sloGoodput(records, slo, 2)).toEqual({ requestsPerSecond: 0.5, met: 1 })
    // The same figure bench serve's per-request goodput gives for the same limits.
    const m = computeServingMetrics(records, { ttftMs: 200, tpotMs: 50 })
    expect(sloGoodput(records, slo, m.durationS)).toEqual({ requestsPerSecond: m.goodput!.requestsPerSecond, met: m.goodput!.met })
  })

  it('should count a failed request as missing, a one-token request as meeting TPOT, and ITL by the request\'s own gaps', () => {
    const failed: RequestRecord = { ok: false, startMs: 0, e2eMs: 1, itlMs: [], error: 'boom' }
    const slo = parseSlo('tpot_p99_ms=5')
    expect(requestMeets(failed, slo)).toBe(false)
    expect(requestMeets(rec(0, 10, [], 1), slo)).toBe(true)
    // Gaps 1, 1, 1, 40: mean 10.75, p50 1.
    const r = rec(0, 10, [1, 1, 1, 40])
    expect(requestMeets(r, parseSlo('itl_p50_ms=2'))).toBe(true)
    expect(requestMeets(r, parseSlo('itl_mean_ms=10'))).toBe(false)
  })
})

describe('evaluate', () => {
  it('should list every missed objective with its limit and the measured value', () => {
    const m = cand({ ttft: [100, 200, 900], tpot: [10, 20, 30] })
    const e = evaluate(m, parseSlo('ttft_p50_ms=500,ttft_p99_ms=500,tpot_mean_ms=15'))
    expect(e.feasible).toBe(false)
    expect(e.violations).toEqual([
      { metric: 'ttft_p99_ms', limit: 500, value: m.ttftMs.p99 },
      { metric: 'tpot_mean_ms', limit: 15, value: 20 },
    ])
    expect(describeViolation(e.violations[1]!)).toBe('tpot_mean_ms 20.0 > 15 (+33%)')
    expect(evaluate(m, parseSlo('ttft_p50_ms=500'))).toEqual({ feasible: true, violations: [] })
  })

  it('should make failed requests and unmeasured latencies infeasible', () => {
    expect(evaluate(cand({ failed: 2 }), []).violations).toEqual([{ metric: 'failed_requests', limit: 0, value: 2 }])
    const none: CandidateMetrics = { ...cand({}), requests: { completed: 0, failed: 0 }, ttftMs: summarize([]) }
    expect(evaluate(none, parseSlo('ttft_p99_ms=1')).violations.map((v) => v.value)).toEqual([0, null])
  })

  it('should be feasible exactly when every stated statistic is within its limit (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.1, max: 1000, noNaN: true }), { minLength: 1, maxLength: 30 }), fc.double({ min: 0.1, max: 1000, noNaN: true }), fc.constantFrom('mean', 'p50', 'p90', 'p95', 'p99'), (xs, limit, stat) => {
        const m = cand({ ttft: xs })
        const e = evaluate(m, parseSlo(`ttft_${stat}_ms=${limit}`))
        expect(e.feasible).toBe(m.ttftMs[stat as 'p99'] <= limit)
        // A tighter limit never turns an infeasible candidate feasible.
        if (!e.feasible) expect(evaluate(m, parseSlo(`ttft_${stat}_ms=${limit / 2}`)).feasible).toBe(false)
      }),
    )
  })
})

describe('ranking and the decision', () => {
  const goodput = parseObjective('goodput')

  it('should rank feasible candidates first, best first, and never choose an infeasible one', () => {
    const cands = [
      { index: 0, metrics: cand({ goodput: 5 }), feasible: true },
      { index: 1, metrics: cand({ goodput: 50 }), feasible: false },
      { index: 2, metrics: cand({ goodput: 8 }), feasible: true },
    ]
    expect(rankCandidates(cands, goodput).map((r) => r.index)).toEqual([2, 0, 1])
    expect(decide(cands, 0, goodput)).toMatchObject({ winner: 2, defaultsFeasible: true })
    // A significance rule that refuses keeps the defaults.
    expect(decide(cands, 0, goodput, () => false)).toMatchObject({ winner: null, reason: expect.stringMatching(/does not beat the defaults/) })
  })

  it('should say plainly that the defaults miss the objectives, and then choose only a candidate that meets them', () => {
    const cands = [
      { index: 0, metrics: cand({ goodput: 9 }), feasible: false },
      { index: 1, metrics: cand({ goodput: 1 }), feasible: true },
    ]
    expect(decide(cands, 0, goodput)).toMatchObject({ winner: 1, defaultsFeasible: false, reason: expect.stringMatching(/^the defaults miss the objectives/) })
    expect(decide([cands[0]!, { ...cands[1]!, feasible: false }], 0, goodput)).toMatchObject({ winner: null, reason: 'the defaults miss the objectives, and so does every other candidate' })
  })

  it('should judge nothing against defaults that were not measured (a time budget that ended before them)', () => {
    const none = { ...cand({ ttft: [] }), requests: { completed: 0, failed: 0 } }
    const cands = [
      { index: 0, metrics: none, feasible: false },
      { index: 1, metrics: cand({ goodput: 5 }), feasible: true },
    ]
    expect(decide(cands, 0, goodput)).toMatchObject({ winner: null, reason: 'the defaults were not measured: no candidate can be judged against them; keep the defaults' })
    // Defaults whose every request failed were measured, and missed the objectives.
    expect(decide([{ ...cands[0]!, metrics: { ...none, requests: { completed: 0, failed: 2 } } }, cands[1]!], 0, goodput)).toMatchObject({ winner: 1, defaultsFeasible: false })
  })

  it('should minimise a latency objective', () => {
    const o = parseObjective('ttft_p99_ms')
    const cands = [0, 1, 2].map((i) => ({ index: i, metrics: cand({ ttft: [[300], [100], [200]][i]! }), feasible: true }))
    expect(rankCandidates(cands, o).map((r) => r.index)).toEqual([1, 2, 0])
  })

  it('should never choose an infeasible candidate, whatever the values (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ v: fc.double({ min: 0, max: 100, noNaN: true }), feasible: fc.boolean() }), { minLength: 1, maxLength: 12 }), (xs) => {
        const cands = xs.map((x, index) => ({ index, metrics: cand({ goodput: x.v }), feasible: x.feasible }))
        const d = decide(cands, 0, goodput)
        if (d.winner !== null) {
          expect(cands[d.winner]!.feasible).toBe(true)
          for (const c of cands) if (c.feasible && c.index !== 0) expect(x(c)).toBeLessThanOrEqual(x(cands[d.winner]!))
        } else if (!xs[0]!.feasible) expect(xs.slice(1).some((c) => c.feasible)).toBe(false)
      }),
    )
    function x(c: { metrics: CandidateMetrics }) {
      return c.metrics.goodput!.requestsPerSecond
    }
  })
})

describe('paretoFront', () => {
  it('should keep the points no other beats on both throughput and latency', () => {
    const pts = [
      { index: 0, throughput: 10, latency: 100 },
      { index: 1, throughput: 20, latency: 200 },
      { index: 2, throughput: 15, latency: 250 }, // dominated by 1
      { index: 3, throughput: 10, latency: 100 }, // equal to 0: neither dominates
      { index: 4, throughput: Number.NaN, latency: 1 },
    ]
    expect(paretoFront(pts)).toEqual([0, 1, 3])
  })

  it('should return a set in which no point dominates another, dominating every point left out (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ t: fc.integer({ min: 0, max: 20 }), l: fc.integer({ min: 0, max: 20 }) }), { maxLength: 25 }), (xs) => {
        const pts = xs.map((p, index) => ({ index, throughput: p.t, latency: p.l }))
        const front = new Set(paretoFront(pts))
        const dom = (q: (typeof pts)[0], p: (typeof pts)[0]) => q.throughput >= p.throughput && q.latency <= p.latency && (q.throughput > p.throughput || q.latency < p.latency)
        for (const p of pts) {
          if (front.has(p.index)) expect(pts.some((q) => dom(q, p))).toBe(false)
          else expect(pts.some((q) => front.has(q.index) && dom(q, p))).toBe(true)
        }
      }),
    )
  })

  it('should plot the objective against the first stated latency', () => {
    expect(paretoAxes(parseObjective('goodput'), parseSlo('tpot_p99_ms=50,ttft_p99_ms=500'))).toEqual({ throughput: 'goodput', latency: { name: 'tpot_p99_ms', metric: 'tpot', stat: 'p99' } })
    expect(paretoAxes(parseObjective('e2e_p90_ms'), []).latency.name).toBe('e2e_p90_ms')
    expect(paretoAxes(parseObjective('goodput'), []).throughput).toBe('outputTokensPerSecond')
  })
})

describe('candidateMetricsOf and records', () => {
  it('should pool records into the figures objectives read, and a record line recomputes them', () => {
    const records = [rec(0, 100, [10, 10]), rec(50, 200, [30])]
    const m = candidateMetricsOf(records, parseSlo('ttft_p99_ms=150'), 0.28)
    const v = computeServingMetrics(records)
    expect(m.ttftMs).toEqual(v.ttftMs)
    expect(m.tpotMs).toEqual(v.tpotMs)
    expect(m.requestThroughput).toBeCloseTo(v.requestThroughput, 9)
    expect(m.goodput).toEqual({ requestsPerSecond: 1 / 0.28, met: 1 })
    const line = recordLine(3, records[0]!, { round: 1 })
    expect(line).toEqual({ candidate: 3, round: 1, ok: true, ttftMs: 100, tpotMs: 10, e2eMs: 120, outputTokens: 3, startMs: 0, itlMs: [10, 10] })
  })
})
