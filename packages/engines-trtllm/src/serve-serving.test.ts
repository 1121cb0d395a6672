import { classifyServerLog, SERVING_COUNTERS } from '@kerneltune/core'
import { describe, expect, it } from 'vitest'
import { trtllmServeEngine } from './serve.ts'

const serving = trtllmServeEngine().serving!

describe('the trtllm-serve serving capability', () => {
  it('should read /version', () => {
    expect(serving.version.read({ version: '1.3.0' })).toEqual({ version: 'TensorRT-LLM 1.3.0' })
  })

  it('should map no Prometheus counter and say why for each', () => {
    expect(serving.metrics.names).toEqual({})
    for (const c of SERVING_COUNTERS) expect(serving.metrics.lacks?.[c]).toMatch(/as JSON .*not Prometheus text/)
  })

  it('should classify click refusals and CUDA out of memory', () => {
    expect(classifyServerLog(serving, ["Error: No such option: --bogus"])?.class).toBe('refused')
    expect(classifyServerLog(serving, ['torch.OutOfMemoryError: CUDA out of memory.'])?.class).toBe('out-of-memory')
  })
})
