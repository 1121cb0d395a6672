import { describe, expect, it } from 'vitest'
import { llamacppServerEngine, withoutServingDefaults } from './server-settings.ts'

describe('llamacppServerEngine', () => {
  it('should add the slot and continuous-batching flags to the translation', async () => {
    const t = await llamacppServerEngine().translate({ threads: '2', parallel: '1', cont_batching: 'off' }, { model: 'm.gguf' })
    expect(t.ok && t.argv).toEqual(['llama-server', '-m', 'm.gguf', '--threads', '2', '--parallel', '1', '--no-cont-batching'])
    const auto = await llamacppServerEngine().translate({ parallel: 'auto', cont_batching: 'on' }, { model: 'm.gguf' })
    expect(auto.ok && auto.argv).toEqual(['llama-server', '-m', 'm.gguf'])
    const refused = await llamacppServerEngine().translate({ parallel: 'x' })
    expect(refused.ok).toBe(false)
    const passes = await llamacppServerEngine().translate({ cache_type_v: 'q8_0', flash_attn: 'off' })
    expect(!passes.ok && passes.dimension).toBe('cache_type_v')
  })

  it('should drop server defaults from a combo', () => {
    expect(withoutServingDefaults({ parallel: 'auto', cont_batching: 'on', threads: 'auto', flash_attn: 'off' })).toEqual({ flash_attn: 'off' })
  })
})
