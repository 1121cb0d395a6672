import { describe, expect, it } from 'vitest'
import { llamacppEngine } from '../engine.ts'
import { measureOnce } from './measure-once.node.ts'

describe('measureOnce', () => {
  it('should refuse a combination the engine cannot run before loading anything, naming the dimension', async () => {
    // A quantized V cache without flash attention is refused by the translator (llama.cpp needs it).
    const run = measureOnce(llamacppEngine(), { modelPath: '/nonexistent/model.gguf', combo: { flash_attn: 'off', cache_type_v: 'q8_0' }, warmups: 0, repetitions: 1 })
    await expect(run).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/^llama\.cpp cannot run (flash_attn|cache_type_v)=/) })
  })
})
