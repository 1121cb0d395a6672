import { describe, expect, it } from 'vitest'
import { openCatalog } from './index.ts'

describe('openCatalog', () => {
  it('should build the catalog from every engine, and for a named one give its refusals', async () => {
    const all = await openCatalog(undefined)
    expect(all.engine).toBeUndefined()
    expect(all.catalog.snapshot.extensions.length).toBeGreaterThan(0)
    const vllm = await openCatalog('vllm')
    expect(vllm.engine?.name).toBe('vllm')
    // The default combination is one vLLM runs: no refusal.
    expect(await vllm.refuse!({})).toBeUndefined()
  })

  it('should name the registered engines for an unknown one, and refuse an unknown release once', async () => {
    await expect(openCatalog('nope')).rejects.toMatchObject({ code: 'PLUGIN_NOT_FOUND', message: expect.stringContaining('registered: vllm') })
    await expect(openCatalog('vllm', undefined, '0.0.0-nope')).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('0.0.0-nope is not supported') })
  })
})
