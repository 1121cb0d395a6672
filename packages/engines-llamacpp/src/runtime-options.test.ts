import { describe, expect, it } from 'vitest'
import { isKerneltuneError } from '@kerneltune/core/lite'
import { LLAMACPP_RULES } from './catalog-extension.ts'
import { QUANTIZED_KV_TYPES } from './facts.ts'
import { runtimeOptions } from './runtime-options.ts'

describe('runtimeOptions', () => {
  it('should map the defaults to node-llama-cpp options, with the micro-batch as the batch', () => {
    const o = runtimeOptions({}, false, 100)
    expect(o.model).toEqual({ gpuLayers: 0, useMmap: true, useMlock: false })
    expect(o.context).toEqual({ batchSize: 512, flashAttention: 'auto', experimentalKvCacheKeyType: 'F16', experimentalKvCacheValueType: 'F16' })
  })

  it('should map threads, flash attention, cache types, context and load mode', () => {
    const o = runtimeOptions({ threads: '4', flash_attn: 'on', cache_type_k: 'q8_0', cache_type_v: 'iq4_nl', ctx_size: '4096', mmap: 'off', mlock: 'on', batch_size: '128' }, true, 100)
    expect(o.context).toEqual({ contextSize: 4096, batchSize: 128, flashAttention: true, threads: 4, experimentalKvCacheKeyType: 'Q8_0', experimentalKvCacheValueType: 'IQ4_NL' })
    expect(o.model).toEqual({ gpuLayers: 'auto', useMmap: false, useMlock: true })
    expect(runtimeOptions({ gpu_layers: 'all' }, true, 1).model.gpuLayers).toBe('max')
    expect(runtimeOptions({ gpu_layers: '8' }, true, 1).model.gpuLayers).toBe(8)
  })

  it('should say where the in-process run differs from llama-server', () => {
    expect(runtimeOptions({ gpu_layers: '8' }, false, 1).notes.join('\n')).toMatch(/gpu_layers=8 has no effect/)
    expect(runtimeOptions({ mlock: 'on' }, false, 1).notes.join('\n')).toMatch(/mlock alone/)
  })

  it('should refuse a context too small for the run', () => {
    expect(() => runtimeOptions({ ctx_size: '512' }, false, 600)).toThrow(/cannot hold the 600/)
  })

  it('should refuse every quantized V cache with flash attention off, as the catalog rule does, and allow it with flash attention on or auto', () => {
    for (const v of QUANTIZED_KV_TYPES) {
      const combo = { cache_type_v: v, flash_attn: 'off' }
      const rule = LLAMACPP_RULES.find((r) => r.id === 'llamacpp.quantized-v-cache-needs-flash-attn')!
      expect(rule.violates(combo, undefined as never)).toBe(true)
      let err: unknown
      try {
        runtimeOptions(combo, false, 1)
      } catch (e) {
        err = e
      }
      expect([v, isKerneltuneError(err) && err.code, (err as { details?: unknown }).details]).toEqual([v, 'UNSUPPORTED_COMBINATION', { rule: rule.id }])
      for (const fa of ['on', 'auto']) expect(() => runtimeOptions({ cache_type_v: v, flash_attn: fa }, false, 1)).not.toThrow()
    }
    expect(() => runtimeOptions({ cache_type_v: 'f16', flash_attn: 'off' }, false, 1)).not.toThrow()
  })
})
