import { describe, expect, it } from 'vitest'
import { createRegistry, type MeasurementBackend } from '@kerneltune/core'
import { analyticalBackend } from '@kerneltune/backends'
import { vllmEngine } from '@kerneltune/engines-vllm'
import { openStore } from '@kerneltune/store'
import { createRun, deviceFingerprint } from '@kerneltune/tuner'
import { API_BASE, createApp } from './app.ts'
import { SMALL_RUN, testApp } from './test-helpers.ts'

/**
 * A real backend on this CPU that names its device, as the llama.cpp and WebGPU backends do (this
 * machine has neither a GPU nor WebGPU): it times a small multiply-add loop in JavaScript.
 */
const CPU = 'this CPU (JavaScript loop, device test)'
const cpuBackend: MeasurementBackend = {
  name: 'cpu-loop', kind: 'measurement-backend', apiVersion: 1, description: 'a multiply-add loop on this CPU', simulated: false,
  proxy: { engine: true, device: true, runs: 'a JavaScript loop' }, exercises: ['attention_backend'],
  device: async () => CPU,
  async measure(request) {
    const repetitions = []
    for (let i = 0; i < request.warmups + request.repetitions; i++) {
      const t0 = performance.now()
      let acc = 0
      for (let k = 0; k < 200_000; k++) acc += (k % 7) * 0.5
      const ms = Math.max(performance.now() - t0, 1e-6)
      if (i >= request.warmups && acc > 0) repetitions.push({ latencyMs: ms, throughputTps: 1000 / ms })
    }
    return { backend: 'cpu-loop', simulated: false, device: CPU, repetitions }
  },
}

async function cpuApp() {
  const store = await openStore(':memory:')
  const built = createApp({ store, registry: createRegistry([vllmEngine(), cpuBackend, analyticalBackend()]) })
  const { token } = await store.tokens.create('operator', 'acme')
  const post = async (body: unknown) => {
    const res = await built.app.request(`${API_BASE}/runs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: res.status, body: (await res.json()) as any }
  }
  return { ...built, store, post }
}

describe('requireDevice without --redis (issue 23 item 20)', () => {
  it('should refuse a run whose required device is not this machine\'s, naming both and the ways out, and create nothing', async () => {
    const t = await cpuApp()
    const r = await t.post({ ...SMALL_RUN, backend: 'cpu-loop', requireDevice: 'no-such-device' })
    expect([r.status, r.body.error.code]).toEqual([503, 'DEVICE_UNAVAILABLE'])
    expect(r.body.error.message).toContain('"no-such-device"')
    expect(r.body.error.message).toContain(`"${CPU}" (id ${deviceFingerprint(CPU)})`)
    expect(r.body.error.message).toMatch(/--redis.*leave out requireDevice/)
    expect((await t.store.runs.list(null)).total).toBe(0)
  })

  it('should run one that requires this device, by name or by the fingerprint a worker prints', async () => {
    const t = await cpuApp()
    for (const requireDevice of [CPU, deviceFingerprint(CPU)]) {
      const r = await t.post({ ...SMALL_RUN, backend: 'cpu-loop', requireDevice })
      expect(r.status).toBe(202)
      await t.queue.idle()
      expect((await t.store.runs.require('acme', r.body.id)).status).toBe('succeeded')
    }
    // A simulated backend measures on no device; the server's device is then its real backend's (as a worker announces it).
    expect((await t.post({ ...SMALL_RUN, requireDevice: CPU })).status).toBe(202)
    await t.queue.idle()
  })

  it('should refuse it when no backend of this server names a device', async () => {
    const t = await testApp()
    const res = await t.call('POST', `${API_BASE}/runs`, { token: t.tokens.operator, body: { ...SMALL_RUN, requireDevice: 'NVIDIA H100 80GB HBM3' } })
    const err = ((await res.json()) as any).error
    expect([res.status, err.code, err.message]).toEqual([503, 'DEVICE_UNAVAILABLE', expect.stringMatching(/no backend of this server names a device/)])
  })

  it('should fail a run queued earlier (by a server with --redis) for another device instead of measuring it here', async () => {
    const t = await cpuApp()
    const run = await createRun(t.store, { ...SMALL_RUN, backend: 'cpu-loop', requireDevice: 'NVIDIA H100 80GB HBM3' }, { catalog: t.deps.catalog, registry: t.deps.registry, tenant: 'acme' })
    t.queue.enqueue('run', run.id)
    await t.queue.idle()
    const after = await t.store.runs.require('acme', run.id)
    expect([after.status, after.error]).toEqual(['failed', expect.stringMatching(/requires device "NVIDIA H100 80GB HBM3".*this server measures on/)])
    expect((await t.store.runs.combos(run.id)).every((c) => c.status === 'pending')).toBe(true)
  })
})
