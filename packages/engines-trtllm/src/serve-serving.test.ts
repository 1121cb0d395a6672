import { classifyServerLog, SERVING_COUNTERS } from '@kerneltune/core'
import { servingEvidenceProblems } from '@kerneltune/engine-conformance'
import { describe, expect, it } from 'vitest'
import { TRTLLM_SERVE_VERSIONS } from './serve-releases.ts'
import { trtllmServeEngine } from './serve.ts'

const serving = trtllmServeEngine().serving!

describe('the trtllm-serve serving capability', () => {
  it('should read /version', () => {
    expect(serving.version.read({ version: '1.3.0' })).toEqual({ version: 'TensorRT-LLM 1.3.0' })
  })

  it('should map no Prometheus counter and say why for each', () => {
    expect(serving.metrics.names).toEqual({})
    for (const c of SERVING_COUNTERS) expect(serving.metrics.lacks?.[c]).toMatch(/as JSON .*not Prometheus text.*\/prometheus\/metrics .*return_perf_metrics/)
  })

  it('should name each route in evidence that cites the release or says it is not verified there', () => {
    expect(servingEvidenceProblems(serving, TRTLLM_SERVE_VERSIONS[0])).toEqual([])
  })

  it('should classify click refusals and CUDA out of memory', () => {
    expect(classifyServerLog(serving, ["Error: No such option: --bogus"])?.class).toBe('refused')
    expect(classifyServerLog(serving, ['torch.OutOfMemoryError: CUDA out of memory.'])?.class).toBe('out-of-memory')
  })
})
