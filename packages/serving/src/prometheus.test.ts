import { describe, expect, it } from 'vitest'
import { metricValue, parsePrometheus } from './prometheus.ts'

const LLAMA = `# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 1280
# HELP llamacpp:predicted_tokens_seconds Average generation throughput in tokens/s.
# TYPE llamacpp:predicted_tokens_seconds gauge
llamacpp:predicted_tokens_seconds 412.5
vllm:e2e_request_latency_seconds_bucket{model_name="m",le="+Inf"} 7 1700000000000
weird{a="x\\"y",b="2"} NaN
`

describe('parsePrometheus', () => {
  it('should read names with colons, types, labels, timestamps and special values', () => {
    const m = parsePrometheus(LLAMA)
    expect(metricValue(m, 'llamacpp:prompt_tokens_total')).toBe(1280)
    expect(metricValue(m, 'llamacpp:predicted_tokens_seconds')).toBe(412.5)
    expect(m.types['llamacpp:prompt_tokens_total']).toBe('counter')
    expect(metricValue(m, 'vllm:e2e_request_latency_seconds_bucket', { le: '+Inf' })).toBe(7)
    const weird = m.samples.find((s) => s.name === 'weird')!
    expect(weird.labels).toEqual({ a: 'x"y', b: '2' })
    expect(Number.isNaN(weird.value)).toBe(true)
    expect(metricValue(m, 'absent')).toBeUndefined()
  })

  it('should name the line it cannot read', () => {
    expect(() => parsePrometheus('ok 1\nthis is not a sample\n')).toThrow(/line 2/)
  })
})
