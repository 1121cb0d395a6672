import { describe, expect, it } from 'vitest'
import { formatSlo, parseSlo } from './slo.ts'

describe('parseSlo', () => {
  it('should read metric_stat_unit=value pairs, seconds in ms', () => {
    expect(parseSlo('ttft_p99_ms=500, tpot_mean_ms=12.5,e2e_p90_s=2')).toEqual([
      { metric: 'ttft', stat: 'p99', ms: 500 },
      { metric: 'tpot', stat: 'mean', ms: 12.5 },
      { metric: 'e2e', stat: 'p90', ms: 2000 },
    ])
    expect(formatSlo(parseSlo('itl_p50_ms=3'))).toBe('itl_p50_ms=3')
  })

  it.each(['', 'ttft=500', 'ttft_p98_ms=1', 'foo_p99_ms=1', 'ttft_p99_us=1', 'ttft_p99_ms=-1', 'ttft_p99_ms=0', 'ttft_p99_ms=1,ttft_p99_ms=2'])('should refuse %j', (s) => {
    expect(() => parseSlo(s)).toThrow(/objective/)
  })
})
