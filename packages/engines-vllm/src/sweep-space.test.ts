import { describe, expect, it } from 'vitest'
import { vllmEngine } from './engine.ts'
import { VLLM_DEFAULT_VERSION } from './releases.ts'
import { vllmServingSweepSpace } from './sweep-space.ts'

describe('vllmServingSweepSpace', () => {
  it('should cross chunked prefill off and on in quick mode, each a flag of the release', () => {
    const space = vllmServingSweepSpace(VLLM_DEFAULT_VERSION, 'quick')
    expect(space).toEqual({ kv_layout: ['paged', 'chunked'] })
    const argv = space.kv_layout!.map((v) => { const t = vllmEngine().translate({ kv_layout: v }, { model: 'm' }); return t.ok ? t.argv.at(-1) : t.reason })
    expect(argv).toEqual(['--no-enable-chunked-prefill', '--enable-chunked-prefill'])
  })

  it('should keep only the attention backends the release has', () => {
    // XFORMERS was removed by v0.13.0: 0.11.2 has it, the pinned release does not.
    expect(vllmServingSweepSpace(VLLM_DEFAULT_VERSION, 'standard').attention_backend).not.toContain('xformers')
    expect(vllmServingSweepSpace('0.11.2', 'standard').attention_backend).toContain('xformers')
    expect(vllmServingSweepSpace(VLLM_DEFAULT_VERSION, 'standard').activation_dtype).toEqual(['bf16', 'fp16'])
  })
})
