import { startInstantServer } from '@kerneltune/serving/node'
import { describe, expect, it } from 'vitest'
import { answeredBy, benchServe, benchTarget, engineOf, parseCombo, parseLevels, servingEngine } from '../bench.node.ts'
import { SERVING_ENGINE_NAMES } from '../engines.ts'

describe('the serving benchmarks as calls', () => {
  it('should read load levels and settings, refusing what cannot be measured as INVALID_INPUT', () => {
    expect(parseLevels(undefined, undefined)).toEqual([{ concurrency: 1 }, { concurrency: 4 }])
    expect(parseLevels('2', 4)).toEqual([{ rate: 4, concurrency: 2 }])
    expect(() => parseLevels('1,x', undefined)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }))
    expect(() => parseLevels('1,2', 4)).toThrow(/one number/)
    expect(parseCombo('{"threads":"2"}')).toEqual({ threads: '2' })
    expect(() => parseCombo('{"threads":2}')).toThrow(/string values/)
    expect(() => parseCombo('{')).toThrow(/not JSON/)
  })

  it('should name the server of any serving engine, and refuse an engine without a serving capability', () => {
    for (const name of SERVING_ENGINE_NAMES) {
      const t = benchTarget('/tmp', { endpoint: 'http://127.0.0.1:9' }, name)
      expect(t).toMatchObject({ kind: 'endpoint', url: 'http://127.0.0.1:9', serving: servingEngine(name).serving })
      expect(benchTarget('/tmp', { launch: 'srv --port {port}', gguf: 'm.gguf' }, name)).toMatchObject({ kind: 'template', model: '/tmp/m.gguf', engine: { name } })
    }
    expect(() => benchTarget('/tmp', { endpoint: 'http://x', launch: 'x {port}' }, SERVING_ENGINE_NAMES[0]!)).toThrow(/not both/)
    expect(() => benchTarget('/tmp', { launch: 'srv' }, SERVING_ENGINE_NAMES[0]!)).toThrow(/needs a \{port\} placeholder/)
    expect(() => benchTarget('/tmp', {}, SERVING_ENGINE_NAMES[0]!)).toThrow(/give the model with --gguf FILE/)
    expect(() => servingEngine('onnx')).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringMatching(/no serving engine named "onnx"/) }))
  })

  it('should measure a running server, naming the engine whose version probe it answered', async () => {
    // The instant server answers llama.cpp's version probe (/props), so a bench of it under that engine names it; under vLLM's it is only OpenAI-compatible.
    const s = await startInstantServer({ tokenDelayMs: 1 })
    try {
      const base = { cwd: '/tmp', env: {}, endpoint: s.baseUrl, concurrency: '1,2', requests: 4, warmup: 0, promptTokens: 8, outputTokens: 4, api: 'completions' as const, seed: 1, readyTimeout: 10, noStore: true }
      const names = SERVING_ENGINE_NAMES.filter((n) => n === 'llamacpp' || n === 'vllm')
      for (const engine of names) {
        const r = await benchServe({ ...base, engine })
        expect(r.ok).toBe(true)
        expect(r.session.levels.map((l) => l.concurrency)).toEqual([1, 2])
        expect(r.records).toHaveLength(8)
        expect(r.json).toMatchObject({ ok: true, engine, concurrency: 2, requests: { completed: 4, failed: 0 }, server: { launched: false } })
        expect(r.stored).toBeUndefined()
      }
      expect((await answeredBy(s.baseUrl, servingEngine('llamacpp')))?.name).toBe('llamacpp')
      expect(await answeredBy(s.baseUrl, servingEngine('vllm'))).toBeUndefined()
      const target = benchTarget('/tmp', { endpoint: s.baseUrl }, 'llamacpp')
      const server = { argv: [], baseUrl: s.baseUrl, version: 'x 1', launched: false }
      expect(engineOf({ target, server, answered: servingEngine('llamacpp') })).toEqual({ engine: 'llamacpp', engineVersion: 'x 1' })
      expect(engineOf({ target, server, answered: undefined })).toEqual({ engine: 'openai-compatible', engineVersion: 'x 1' })
    } finally {
      await s.close()
    }
  })
})
