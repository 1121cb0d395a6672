import { describe, expect, it } from 'vitest'
import { MEAN_MEDIAN_LIMIT, STALL_LIMIT, flagRow, type RowFigures } from './serving-flags.ts'

// The llama-server rows of bench/results/serving-overhead.json as committed in c04bbdc (measured
// 2026-11-23 on the loaded 2-core AMD EPYC), copied here so that re-measuring does not change the
// test: the 1-in-flight row stalled (issue 23 item 8), the 8-in-flight row did not.
const stalled: RowFigures = {
  ttftMs: { mean: 255.86416979166793, p50: 82.96265199998743, p99: 1993.9320460399986 },
  itlMs: { mean: 144.70250869606502, p50: 2.3018359999987297, p99: 1755.1441142000099 },
  e2eMs: { mean: 4699.8979456666675, p50: 3678.356952000002, p99: 20972.358107720007 },
}
const eightInFlight: RowFigures = {
  ttftMs: { mean: 207.29048473913218, p50: 192.82990800001426, p99: 359.9295497600094 },
  itlMs: { mean: 3.8620923342775697, p50: 0.0014935000072000548, p99: 118.9180752500013 },
  e2eMs: { mean: 329.11828904347897, p50: 203.5414779999992, p99: 744.6669061199849 },
}
// The instant server at 1 in flight, same file: client-side costs only.
const instant: RowFigures = {
  ttftMs: { mean: 12.61981960000001, p50: 8.014106000000083, p99: 84.40992901999985 },
  itlMs: { mean: 0.004318410322580935, p50: 0.0008009999992282246, p99: 0.016862209999499105 },
  e2eMs: { mean: 12.876432935000002, p50: 8.281606999999894, p99: 84.48298672000065 },
}

describe('flagRow', () => {
  it('should flag the committed stalled row at 1 in flight, for its TTFT skew and its ITL stall', () => {
    const flags = flagRow(stalled)
    expect(flags.map((f) => `${f.metric}:${f.rule}`)).toEqual(['ttftMs:mean-median', 'itlMs:stall'])
    expect(flags[0]!.value).toBeCloseTo((255.864 - 82.963) / 82.963, 3)
    expect(flags[1]!.value).toBeCloseTo(1755.144 / 82.963, 2)
    expect(flags[1]!.reason).toMatch(/ITL p99 1755 ms is 21\.2x the median TTFT 83\.0 ms/)
  })

  it('should not flag the committed 8-in-flight row nor the instant server', () => {
    expect(flagRow(eightInFlight)).toEqual([])
    expect(flagRow(instant)).toEqual([])
  })

  it('should flag an E2E mean more than twice its median, and not one just under', () => {
    const e2e = (mean: number) => ({ ...eightInFlight, e2eMs: { mean, p50: 100, p99: 900 } })
    expect(flagRow(e2e(100 * (1 + MEAN_MEDIAN_LIMIT) + 1)).map((f) => f.metric)).toEqual(['e2eMs'])
    expect(flagRow(e2e(100 * (1 + MEAN_MEDIAN_LIMIT) - 1))).toEqual([])
  })

  it('should flag an ITL p99 past the stall limit in TTFTs, whatever the ITL median', () => {
    const itl = (p99: number) => ({ ...instant, itlMs: { mean: 1, p50: 0.001, p99 } })
    expect(flagRow(itl(8.014106 * STALL_LIMIT + 0.01))[0]).toMatchObject({ metric: 'itlMs', rule: 'stall' })
    expect(flagRow(itl(8.014106 * STALL_LIMIT - 0.01))).toEqual([])
  })

  it('should not flag rows it cannot judge (no completed request: NaN figures)', () => {
    const nan = { mean: Number.NaN, p50: Number.NaN, p99: Number.NaN }
    expect(flagRow({ ttftMs: nan, itlMs: nan, e2eMs: nan })).toEqual([])
  })
})
