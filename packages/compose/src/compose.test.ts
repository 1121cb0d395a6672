import { describe, expect, it } from 'vitest'
import { ENGINE_NAMES, engineRegistry, loadEngine } from './index.ts'
import { backendPlugins, compose, defaultRegistry, enginePlugins } from './node.ts'

describe('the composition root', () => {
  it('should register each engine exactly once, under the names ENGINE_NAMES lists', () => {
    const names = enginePlugins().map((e) => e.name)
    expect(new Set(names).size).toBe(names.length)
    expect(names).toEqual([...ENGINE_NAMES])
    expect(defaultRegistry().list('engine').map((e) => e.name)).toEqual([...ENGINE_NAMES])
  })

  it('should register every built-in backend and the search strategies, and build the catalog from them', async () => {
    const registry = defaultRegistry()
    expect(registry.list('measurement-backend').map((b) => b.name)).toEqual(backendPlugins().map((b) => b.name))
    expect(registry.list('measurement-backend').map((b) => b.name)).toEqual(['analytical', 'gpu-kernels', 'node-llama-cpp', 'server'])
    expect(registry.list('search-strategy').length).toBeGreaterThan(0)
    const c = await compose({ databaseUrl: ':memory:', env: {} })
    try {
      expect(c.registry.list('engine').map((e) => e.name)).toEqual([...ENGINE_NAMES])
      // llama.cpp's own dimensions are in the catalog: its engine's extension was registered.
      expect(c.catalog.dimensionsFor('llamacpp').map((d) => d.id)).toContain('flash_attn')
      expect((await c.store.runs.list(null, { limit: 1 })).total).toBe(0)
    } finally {
      await c.close()
    }
  })
})

describe('the engine registry', () => {
  it('should hold the same engines as the full registry, and no backend or strategy', async () => {
    const registry = await engineRegistry()
    expect(registry.list('engine').map((e) => e.name)).toEqual([...ENGINE_NAMES])
    expect(registry.list('measurement-backend')).toEqual([])
    expect(registry.list('search-strategy')).toEqual([])
  })

  it('should load only the engines named, with those they work with', async () => {
    expect((await engineRegistry(['vllm'])).list('engine').map((e) => e.name)).toEqual(['vllm'])
    expect((await engineRegistry(['triton'])).list('engine').map((e) => e.name)).toEqual(['trtllm', 'trtllm-serve', 'triton', 'vllm'].sort((a, b) => ENGINE_NAMES.indexOf(a as never) - ENGINE_NAMES.indexOf(b as never)))
  })

  it('should load one engine by name and refuse an unknown one', async () => {
    expect((await loadEngine('tgi')).name).toBe('tgi')
    await expect(loadEngine('nope')).rejects.toMatchObject({ code: 'PLUGIN_NOT_FOUND' })
  })
})
