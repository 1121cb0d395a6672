import { CONTRACT_VERSIONS, type EnginePlugin } from '@kerneltune/core'
import { describe, expect, it } from 'vitest'
import { API_BASE } from './app.ts'
import { OptionsResponse } from './responses.ts'
import { testApp } from './test-helpers.ts'

type Options = ReturnType<typeof OptionsResponse.parse>

/** A third-party engine the dashboard has never heard of: refuses everything, which is enough to list it. */
const toyEngine = (): EnginePlugin => ({
  name: 'toy-engine', kind: 'engine', apiVersion: CONTRACT_VERSIONS.engine, displayName: 'Toy engine',
  defaultVersion: '2.0', supportedVersions: () => ['1.0', '2.0'], controls: [],
  translate: (combo) => ({ ok: false, engine: 'toy-engine', version: '2.0', dimension: Object.keys(combo)[0] ?? 'none', value: Object.values(combo)[0] ?? '', reason: 'a toy' }),
})

const options = async (t: Awaited<ReturnType<typeof testApp>>, token?: string) => {
  const res = await t.call('GET', `${API_BASE}/options`, token ? { token } : {})
  expect(res.status).toBe(200)
  return OptionsResponse.parse(await res.json()) as Options
}

describe('GET /options: the choices the dashboard offers, from the registry', () => {
  it('should list the registry\'s engines with their versions, its backends with what their numbers are, the hardware presets, modes and gates', async () => {
    const t = await testApp()
    const o = await options(t, t.tokens.viewer)
    const vllm = t.registry.find('engine', 'vllm')!
    expect(o.engines).toEqual([{ name: 'vllm', displayName: vllm.displayName, defaultVersion: vllm.defaultVersion, versions: [...vllm.supportedVersions()] }])
    expect(o.backends).toEqual([{ name: 'analytical', simulated: true, proxy: null, label: 'simulated', description: 'nothing is run; the numbers are a roofline prediction for the hardware preset.' }])
    expect(o.hardware.find((h) => h.id === 'h100-sxm')).toMatchObject({ vendor: 'nvidia', memBwGbs: 3350 })
    expect(o.modes).toEqual(['exhaustive', 'quick'])
    expect(o.gates).toContain('topk5')
  })

  it('should show an engine added to the registry, with no change to the dashboard, and the catalog preview accept it', async () => {
    const t = await testApp({}, {}, [toyEngine()])
    const o = await options(t)
    expect(o.engines.map((e) => e.name)).toEqual(['vllm', 'toy-engine'])
    expect(o.engines[1]).toEqual({ name: 'toy-engine', displayName: 'Toy engine', defaultVersion: '2.0', versions: ['1.0', '2.0'] })
    // What the Runner does with the listed choices: preview a sweep for it on a listed preset.
    const hardware = JSON.stringify(o.hardware.find((h) => h.id === 'h100-sxm'))
    const preview = await t.call('GET', `${API_BASE}/catalog/preview?engine=toy-engine&mode=quick&hardware=${encodeURIComponent(hardware)}`)
    expect(preview.status).toBe(200)
    expect(((await preview.json()) as { counts: { quick: { legal: number; refused: number } } }).counts.quick.legal).toBe(0)
  })

  it('should label a proxy backend as one', async () => {
    const proxy = { name: 'stand-in', kind: 'measurement-backend' as const, apiVersion: CONTRACT_VERSIONS['measurement-backend'], simulated: false, proxy: { engine: true, device: false, runs: 'a toy' }, measure: async () => { throw new Error('not in this test') } }
    const t = await testApp({}, {}, [proxy])
    expect((await options(t)).backends.find((b) => b.name === 'stand-in')).toEqual({ name: 'stand-in', simulated: false, proxy: { engine: true, device: false, runs: 'a toy' }, label: 'proxy', description: null })
  })
})
