import { classifyServerLog } from '@kerneltune/core'
import { describe, expect, it } from 'vitest'
import { tgiEngine } from './engine.ts'

const serving = tgiEngine().serving!

describe('the TGI serving capability', () => {
  it('should read /info: version, model and concurrent requests', () => {
    expect(serving.version.read({ version: '3.3.7', model_id: 'org/m', max_concurrent_requests: 128 })).toEqual({ version: 'TGI 3.3.7', modelAlias: 'org/m', slots: 128 })
    expect(serving.version.read({ build_info: 'b1' })).toBeUndefined()
  })

  it('should classify the launcher\'s and the shards\' own lines', () => {
    expect(classifyServerLog(serving, ["error: unexpected argument '--bogus' found"])?.class).toBe('refused')
    expect(classifyServerLog(serving, ['RuntimeError: Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`'])?.class).toBe('out-of-memory')
    expect(classifyServerLog(serving, ['ERROR text_generation_launcher: Shard 0 crashed'])?.class).toBe('crashed')
  })

  it('should say it exports no KV-cache usage', () => {
    expect(serving.metrics.lacks?.kvCacheUsage).toMatch(/no KV-cache usage/)
  })
})
