/**
 * A backend made for one run (a model-file backend with forRun: a kept server pool) belongs to
 * whoever measures with it: executeRun closes it when the run ends, and so must the callers that
 * measure part of a run (a worker's combination, a Tier 2 trial), or every call leaves its servers up.
 */
import { describe, expect, it } from 'vitest'
import { createRegistry, modelFileBackend, type MeasurementBackend } from '@kerneltune/core'
import { withRunBackend } from '../index.ts'

function counting() {
  const made: string[] = []
  const closed: string[] = []
  const backend = (id: string): MeasurementBackend => ({
    name: 'files', kind: 'measurement-backend', apiVersion: 1, simulated: true,
    available: async () => ({ ok: true }),
    measure: async () => { throw new Error('not measured here') },
    close: async () => { closed.push(id) },
  })
  const plugin = modelFileBackend({ name: 'files', description: 'test', simulated: true, fileKind: 'a test file', create: (p) => { made.push(`shared ${p}`); return backend(`shared ${p}`) }, forRun: (p) => { made.push(`run ${p}`); return backend(`run ${p}`) } })
  return { registry: createRegistry([plugin]), made, closed }
}

describe('withRunBackend', () => {
  it('should close a backend made for the run, even when the call fails, and leave a shared one open', async () => {
    const { registry, made, closed } = counting()
    const run = { backend: 'files', target: { modelPath: '/m.gguf', engine: 'llamacpp', options: { serving: { keepServers: 2 } } } }
    expect(await withRunBackend(registry, run, async (b) => b.name)).toBe('files')
    await expect(withRunBackend(registry, run, async () => { throw new Error('boom') })).rejects.toThrow('boom')
    expect(made).toEqual(['run /m.gguf', 'run /m.gguf'])
    expect(closed).toEqual(['run /m.gguf', 'run /m.gguf'])
    // A bare file (no engine stored: a device probe) gets the file's shared backend, not closed.
    await withRunBackend(registry, { backend: 'files', target: { modelPath: '/m.gguf' } }, async () => undefined)
    expect(made.at(-1)).toBe('shared /m.gguf')
    expect(closed).toHaveLength(2)
  })
})
