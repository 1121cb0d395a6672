import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildRunRequest, llamacppRestrict } from './run-request.node.ts'

describe('llamacppRestrict', () => {
  it('should search slots on the server backend by default and pin them (and continuous batching) at llama-server\'s defaults otherwise', () => {
    expect(llamacppRestrict(2, {}, true)).toMatchObject({ parallel: ['auto', '1'], cont_batching: ['on'], flash_attn: ['auto', 'off'] })
    expect(llamacppRestrict(2)).toMatchObject({ parallel: ['auto'], cont_batching: ['on'] })
    expect(llamacppRestrict(2, { threads: ['1'] }, true)).toMatchObject({ threads: ['1'], parallel: ['auto'], cont_batching: ['on'] })
  })
})

describe('buildRunRequest', () => {
  const model = { name: 'tiny', paramsB: 1.1, quant: 'F16' }
  const hardware = { name: 'NVIDIA H100 SXM', vendor: 'nvidia', memBwGbs: 3350, fp16Tflops: 989 }

  it('should refuse a request without a model, and one the server\'s schema refuses, before anything is sent', async () => {
    await expect(buildRunRequest(undefined, { engine: 'vllm' }, '/')).rejects.toThrow(/a run needs a model, hardware and an engine/)
    await expect(buildRunRequest(undefined, { engine: 'vllm', reps: 1 }, '/')).rejects.toMatchObject({ code: 'INVALID_INPUT' })
    await expect(buildRunRequest(undefined, { restrict: '[1]' }, '/')).rejects.toThrow(/--restrict must be a JSON object/)
  })

  it('should send the request file as given with the fields over it, and give the llama.cpp engine its quick space', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-run-request-'))
    writeFileSync(join(dir, 'r.json'), JSON.stringify({ model, hardware, engine: 'tgi', repetitions: 5 }))
    const r = await buildRunRequest('r.json', { engine: 'vllm', reps: 3, promptTokens: 64, slo: { ttft_p99_ms: 500 }, objective: 'goodput' }, dir)
    expect(r).toEqual({ model, hardware, engine: 'vllm', repetitions: 3, slo: { ttft_p99_ms: 500 }, objective: 'goodput', workload: { batch: 1, promptTokens: 64 } })
    const llama = await buildRunRequest('r.json', { engine: 'llamacpp', backend: 'server', restrict: '{"threads":["1"]}' }, dir)
    expect(llama.restrict).toEqual(llamacppRestrict(undefined, { threads: ['1'] }, true))
    await expect(buildRunRequest('missing.json', {}, dir)).rejects.toThrow(/cannot read the request file/)
  })
})
