import { describe, expect, it } from 'vitest'
import { createRegistry, modelFileBackend, type MeasurementBackend, type ModelFileRunOptions } from '@kerneltune/core'
import { backendForRun, modelFileRunOptions, ownsBackend } from './backend.ts'

/** A backend that says what it was made with; close() counts. */
function made(label: string, closed: string[]): MeasurementBackend {
  return {
    name: 'file', kind: 'measurement-backend', apiVersion: 1, simulated: true, description: label,
    async measure() {
      return { backend: 'file', simulated: true, device: label, repetitions: [{ latencyMs: 1 }] }
    },
    close: () => void closed.push(label),
  }
}

describe('backendForRun with a model-file backend told the run', () => {
  it('should give a run its own backend made with its stored options, and share the path\'s backend otherwise', () => {
    const closed: string[] = []
    const seen: ModelFileRunOptions[] = []
    const plain = modelFileBackend({ name: 'plain', description: 'x', simulated: true, fileKind: 'a file', create: (p) => made(`shared ${p}`, closed) })
    const perRun = modelFileBackend({
      name: 'per-run', description: 'x', simulated: true, fileKind: 'a file', create: (p) => made(`shared ${p}`, closed),
      forRun: (p, o) => (seen.push(o), made(`run ${p} ${JSON.stringify(o.options)}`, closed)),
    })
    const registry = createRegistry([plain, perRun])
    const run = (backend: string) => ({ backend, progress: { done: 0, total: 3 }, target: { modelPath: '/m', engine: 'llamacpp', options: { serving: { requests: 2 } } } })
    // Shared: one backend per path, whatever the run stored; not the run's to close.
    expect(backendForRun(registry, run('plain'))).toBe(backendForRun(registry, run('plain')))
    expect(ownsBackend(registry, run('plain'))).toBe(false)
    // Per run: made with the run's options each time, and the run's to close.
    const a = backendForRun(registry, run('per-run'))
    expect(a.description).toBe('run /m {"serving":{"requests":2}}')
    expect(backendForRun(registry, run('per-run'))).not.toBe(a)
    expect(seen[0]).toEqual({ engine: 'llamacpp', options: { serving: { requests: 2 } }, combos: 3 })
    expect(ownsBackend(registry, run('per-run'))).toBe(true)
    // A bare file (a device probe names no engine) gets the path's shared backend.
    expect(modelFileRunOptions({ backend: 'per-run', target: { modelPath: '/m' } })).toBeUndefined()
    expect(backendForRun(registry, { backend: 'per-run', target: { modelPath: '/m' } }).description).toBe('shared /m')
    expect(ownsBackend(registry, { backend: 'per-run', target: { modelPath: '/m' } })).toBe(false)
    expect(closed).toEqual([])
  })
})
