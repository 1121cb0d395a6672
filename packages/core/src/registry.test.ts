import { describe, expect, it } from 'vitest'
import { createRegistry, wrapPlugin } from './registry.ts'
import { isKerneltuneError, KerneltuneError } from './errors.ts'
import type { EnginePlugin } from './contracts/engine.ts'
import type { MeasurementBackend } from './contracts/measurement.ts'

function engine(name: string, overrides: Partial<EnginePlugin> = {}): EnginePlugin {
  return {
    name,
    kind: 'engine',
    apiVersion: 1,
    displayName: name.toUpperCase(),
    defaultVersion: '1.0',
    supportedVersions: () => ['1.0'],
    translate: (combo) => ({ ok: true, engine: name, version: '1.0', argv: Object.values(combo), env: {}, files: {}, notes: [] }),
    ...overrides,
  }
}

function catchError(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  throw new Error('expected a throw')
}

describe('createRegistry', () => {
  it('should register, look up and list plugins by kind', () => {
    const registry = createRegistry()
    registry.register(engine('a'))
    registry.register(engine('b'))
    const backend: MeasurementBackend = {
      name: 'backend:x', kind: 'measurement-backend', apiVersion: 1, simulated: false,
      measure: async () => ({ backend: 'backend:x', simulated: false, device: 'cpu', repetitions: [] }),
    }
    registry.register(backend)
    expect(registry.list('engine').map((p) => p.name)).toEqual(['a', 'b'])
    expect(registry.list('measurement-backend').map((p) => p.name)).toEqual(['backend:x'])
    expect(registry.list()).toHaveLength(3)
    expect(registry.get('engine', 'b').displayName).toBe('B')
    expect(registry.find('engine', 'backend:x')).toBeUndefined()
    expect(registry.has('a')).toBe(true)
  })

  it('should reject a duplicate name with DUPLICATE_PLUGIN', () => {
    const registry = createRegistry([engine('a')])
    const err = catchError(() => registry.register(engine('a')))
    expect(isKerneltuneError(err)).toBe(true)
    expect((err as KerneltuneError).code).toBe('DUPLICATE_PLUGIN')
    expect((err as KerneltuneError).message).toContain('a')
  })

  it('should reject an incompatible contract version, naming both versions', () => {
    const err = catchError(() => createRegistry().register(engine('a', { apiVersion: 2 })))
    expect((err as KerneltuneError).code).toBe('INCOMPATIBLE_PLUGIN')
    expect((err as KerneltuneError).message).toMatch(/version 2.*version 1/)
  })

  it('should reject a plugin missing required hooks or with a bad name', () => {
    const noTranslate = { ...engine('a') } as Partial<EnginePlugin>
    delete noTranslate.translate
    expect((catchError(() => createRegistry().register(noTranslate as EnginePlugin)) as KerneltuneError).code).toBe('INVALID_PLUGIN')
    expect((catchError(() => createRegistry().register(engine('Bad Name'))) as KerneltuneError).code).toBe('INVALID_PLUGIN')
    expect((catchError(() => createRegistry().register({ name: 'x', kind: 'nope' } as never)) as KerneltuneError).code).toBe('INVALID_PLUGIN')
  })

  it('should throw PLUGIN_NOT_FOUND listing what exists', () => {
    const registry = createRegistry([engine('vllm')])
    const err = catchError(() => registry.get('engine', 'tgi')) as KerneltuneError
    expect(err.code).toBe('PLUGIN_NOT_FOUND')
    expect(err.message).toContain('vllm')
  })

  it('should stamp a sync throw with the plugin name, hook and cause', () => {
    const cause = new Error('boom')
    const registry = createRegistry()
    const p = registry.register(engine('faulty', { supportedVersions: () => { throw cause } }))
    const err = catchError(() => p.supportedVersions()) as KerneltuneError
    expect(err.code).toBe('PLUGIN_ERROR')
    expect(err.plugin).toBe('faulty')
    expect(err.hook).toBe('supportedVersions')
    expect(err.cause).toBe(cause)
    expect(err.message).toBe('[plugin faulty] supportedVersions failed: boom')
  })

  it('should stamp an async rejection the same way', async () => {
    const backend: MeasurementBackend = {
      name: 'slow', kind: 'measurement-backend', apiVersion: 1, simulated: false,
      measure: async () => { throw new TypeError('no device') },
    }
    const p = createRegistry().register(backend)
    await expect(p.measure({ combo: {}, repetitions: 1, warmups: 0 })).rejects.toMatchObject({
      code: 'PLUGIN_ERROR', plugin: 'slow', hook: 'measure',
    })
  })

  it('should pass results through unchanged and keep `this` bound to the plugin', () => {
    const plugin = {
      ...engine('self'),
      prefix: '--x',
      translate(this: { prefix: string }, _combo: Readonly<Record<string, string>>) {
        return { ok: true as const, engine: 'self', version: '1.0', argv: [this.prefix], env: {}, files: {}, notes: [] }
      },
    }
    const wrapped = wrapPlugin(plugin)
    expect(wrapped.translate({})).toMatchObject({ argv: ['--x'] })
    expect(Object.isFrozen(wrapped)).toBe(true)
  })

  it('should collect catalog extensions from engine plugins', () => {
    const extension = { dimensions: [], rules: [] }
    const registry = createRegistry([engine('a'), engine('b', { catalogExtension: extension })])
    expect(registry.catalogExtensions()).toEqual([{ engine: 'b', extension }])
  })
})
