import { describe, expect, it } from 'vitest'
import { compareVersions, createRegistry, type CatalogExtension, type EnginePlugin } from '@kerneltune/core'
import { buildCatalog, createCatalog } from './catalog.ts'
import { CATALOG_VERSION, parseSnapshot, verifySnapshot } from './snapshot.ts'
import { H100, M2 } from '../test/fixtures.ts'

// A llama.cpp-like extension: its own knobs, none of the CUDA-centred core axes but the dtype.
const llamaExtension: CatalogExtension = {
  coreDimensions: ['activation_dtype'],
  dimensions: [
    { id: 'flash_attn', title: 'Flash attention', description: '-fa', defaultValue: 'off', values: [{ id: 'on', description: 'on' }, { id: 'off', description: 'off' }] },
    { id: 'cache_type_v', title: 'V cache type', description: '-ctv', defaultValue: 'f16', values: ['f16', 'q8_0', 'q4_0'].map((id) => ({ id, description: id })), quickValues: ['f16', 'q8_0'] },
  ],
  rules: [{
    id: 'llamacpp-quantized-v-cache-needs-flash-attn',
    kind: 'illegal',
    reason: 'llama.cpp refuses a quantized V cache without flash attention.',
    source: 'llama.cpp common/arg.cpp',
    dimensions: ['cache_type_v', 'flash_attn'],
    violates: (c) => c.cache_type_v !== undefined && c.cache_type_v !== 'f16' && c.flash_attn !== 'on',
  }],
}

const engine = (name: string, catalogExtension?: CatalogExtension): EnginePlugin => ({
  name, kind: 'engine', apiVersion: 1, displayName: name, defaultVersion: '1', supportedVersions: () => ['1'],
  translate: () => ({ ok: true, engine: name, version: '1', argv: [], env: {}, files: {}, notes: [] }),
  ...(catalogExtension ? { catalogExtension } : {}),
})

describe('catalog extensions', () => {
  const catalog = createCatalog({ extensions: [{ engine: 'llamacpp', extension: llamaExtension }] })

  it("should apply an extension's dimensions and rules to its engine only", () => {
    expect(catalog.dimensionsFor('llamacpp').map((d) => d.id)).toEqual(['activation_dtype', 'flash_attn', 'cache_type_v'])
    expect(catalog.dimensionsFor('vllm').map((d) => d.id)).not.toContain('flash_attn')
    expect(catalog.rulesFor('vllm').some((r) => r.engine)).toBe(false)
    expect(catalog.rulesFor('engine:llamacpp').map((r) => r.id)).toContain('llamacpp-quantized-v-cache-needs-flash-attn')
    const c = catalog.count({ hardware: M2, engine: 'llamacpp' })
    // 4 dtypes × 2 × 3 = 24; fp8 (2 dtypes) and bf16 (Apple, not assumed) are illegal; 2 of 6 cache combos are legal.
    expect(c.total).toBe(24)
    expect(c.legal).toBe(1 * 4)
    expect(c.byRule['llamacpp-quantized-v-cache-needs-flash-attn']).toBe(4 * 2)
    expect(catalog.count({ hardware: M2, engine: 'llamacpp' }, { mode: 'quick' }).total).toBe(3 * 2 * 2)
  })

  it('should refuse broken extensions with INVALID_PLUGIN', () => {
    const dup = { ...llamaExtension, dimensions: [{ ...llamaExtension.dimensions[0]!, id: 'kv_layout' }] }
    expect(() => createCatalog({ extensions: [{ engine: 'x', extension: dup }] })).toThrow(/kv_layout already exists/)
    const badDefault = { ...llamaExtension, dimensions: [{ ...llamaExtension.dimensions[0]!, defaultValue: 'maybe' }] }
    expect(() => createCatalog({ extensions: [{ engine: 'x', extension: badDefault }] })).toThrow(/defaultValue "maybe"/)
    const badCore = { ...llamaExtension, coreDimensions: ['warp'] }
    expect(() => createCatalog({ extensions: [{ engine: 'x', extension: badCore }] })).toThrow(/unknown core dimensions warp/)
  })

  it('should take extensions from a registry', () => {
    const registry = createRegistry([engine('vllm'), engine('llamacpp', llamaExtension)])
    const built = buildCatalog(registry)
    expect(built.snapshot.extensions).toEqual(['llamacpp'])
    expect(built.hash).toBe(catalog.hash)
  })
})

describe('engine controls', () => {
  // A TGI-like engine: no fusion control.
  const controls = { tgi: ['attention_backend', 'kv_layout', 'matmul_path', 'activation_dtype', 'cuda_graph'] as const }
  const catalog = createCatalog({ controls })

  it('should pin an uncontrolled dimension to its neutral value for that engine only', () => {
    expect(catalog.dimensionsFor('tgi').find((d) => d.id === 'fusion_strategy')!.values.map((v) => v.id)).toEqual(['none'])
    expect(catalog.dimensionsFor('vllm').find((d) => d.id === 'fusion_strategy')!.values).toHaveLength(3)
    expect(catalog.space({ hardware: H100, engine: 'tgi' }).total).toBe(2592 / 3)
    expect(catalog.space({ hardware: H100, engine: 'tgi' }, 'quick').total).toBe(288 / 2)
    expect(catalog.check({ fusion_strategy: 'none' }, { hardware: H100, engine: 'tgi' }).legal).toBe(true)
    expect(catalog.check({ fusion_strategy: 'aggressive' }, { hardware: H100, engine: 'tgi' }).issues[0]).toMatch(/has no control for fusion_strategy; only none/)
  })

  it('should record the pinned dimensions in the snapshot and its hash', () => {
    expect(catalog.snapshot.uncontrolled).toEqual({ tgi: ['fusion_strategy'] })
    expect(catalog.hash).not.toBe(createCatalog().hash)
    expect(createCatalog({ controls: { vllm: ['attention_backend', 'kv_layout', 'matmul_path', 'activation_dtype', 'fusion_strategy', 'cuda_graph'] } }).hash).toBe(createCatalog().hash)
    expect(parseSnapshot(JSON.parse(JSON.stringify(catalog.snapshot)))).toEqual(catalog.snapshot)
  })

  it('should take controls from the registry, all six for a plugin that declares none', () => {
    const registry = createRegistry([engine('vllm'), { ...engine('tgi'), controls: controls.tgi }])
    expect(buildCatalog(registry).hash).toBe(catalog.hash)
  })

  it('should refuse controls that name unknown core dimensions', () => {
    expect(() => createCatalog({ controls: { x: ['warp' as never] } })).toThrow(/unknown core dimensions warp/)
  })
})

describe('rules with a version range', () => {
  // A fact that holds only for some releases of an engine (e.g. a flag added in 0.13.0).
  const ext: CatalogExtension = {
    dimensions: [],
    rules: [{ id: 'x/no-graphs-before-0.13', kind: 'illegal', reason: 'r', source: 's', dimensions: ['cuda_graph'], versions: { until: '0.13.0' }, violates: (c) => c.cuda_graph === 'off' }],
  }
  const catalog = createCatalog({ extensions: [{ engine: 'x', extension: ext }] })
  const violated = (engineVersion?: string) => catalog.check({ cuda_graph: 'off' }, { hardware: H100, engine: 'x', ...(engineVersion ? { engineVersion } : {}) }).legal === false

  it('should apply a rule only to the releases it covers, and to every release when none is named', () => {
    expect(violated('0.11.2')).toBe(true)
    expect(violated('v0.12.0')).toBe(true)
    expect(violated('0.13.0')).toBe(false)
    expect(violated('0.32.0')).toBe(false)
    expect(violated()).toBe(true)
    expect(catalog.preview({ hardware: H100, engine: 'x', engineVersion: '0.32.0' }).rules.map((r) => r.id)).not.toContain('x/no-graphs-before-0.13')
  })

  it('should record the range in the snapshot', () => {
    expect(catalog.snapshot.rules.find((r) => r.id === 'x/no-graphs-before-0.13')!.versions).toEqual({ until: '0.13.0' })
    expect(parseSnapshot(JSON.parse(JSON.stringify(catalog.snapshot)))).toEqual(catalog.snapshot)
  })

  it('should compare releases as dotted numbers, ignoring a v or b prefix', () => {
    expect(compareVersions('0.9.0', '0.13.0')).toBeLessThan(0)
    expect(compareVersions('b10114', 'b6343')).toBeGreaterThan(0)
    expect(compareVersions('v1.2', '1.2.0')).toBe(0)
  })
})

describe('snapshots', () => {
  it('should be deep-frozen, versioned, JSON-serialisable and verifiable', () => {
    const catalog = createCatalog()
    const s = catalog.snapshot
    expect(s.version).toBe(CATALOG_VERSION)
    expect(Object.isFrozen(s) && Object.isFrozen(s.rules) && Object.isFrozen(s.dimensions[0]!.values[0])).toBe(true)
    const json = JSON.parse(JSON.stringify(s))
    expect(parseSnapshot(json)).toEqual(s)
    expect(verifySnapshot(s)).toBe(true)
    expect(s.rules.find((r) => r.id === 'flash-attn-v3-needs-hopper')).toMatchObject({ kind: 'illegal', dimensions: ['attention_backend'] })
  })

  it('should hash content: equal catalogs agree, any change differs, tampering is caught', () => {
    const a = createCatalog()
    expect(createCatalog().hash).toBe(a.hash)
    expect(createCatalog({ createdAt: '2026-01-01T00:00:00Z' }).hash).toBe(a.hash)
    expect(createCatalog({ extensions: [{ engine: 'llamacpp', extension: llamaExtension }] }).hash).not.toBe(a.hash)
    const tampered = JSON.parse(JSON.stringify(a.snapshot))
    tampered.rules[0].reason = 'edited'
    expect(() => parseSnapshot(tampered)).toThrow(/does not match its hash/)
    expect(() => parseSnapshot({ version: '1' })).toThrow(/invalid catalog snapshot/)
  })

  it('should keep a run bound to the snapshot it took while the catalog moves on', () => {
    const before = createCatalog().snapshot
    const after = createCatalog({ extensions: [{ engine: 'llamacpp', extension: llamaExtension }] })
    expect(after.hash).not.toBe(before.hash)
    expect(verifySnapshot(before)).toBe(true)
    expect(before.rules.some((r) => r.engine === 'llamacpp')).toBe(false)
  })

  it('should wrap a rule that throws as PLUGIN_ERROR naming the rule', () => {
    const boom: CatalogExtension = { dimensions: [], rules: [{ id: 'boom', kind: 'illegal', reason: 'r', source: 's', dimensions: [], violates: () => { throw new Error('bad rule') } }] }
    const c = createCatalog({ extensions: [{ engine: 'x', extension: boom }] })
    expect(() => c.count({ hardware: H100, engine: 'x' })).toThrow(/catalog rule boom \(engine x\) threw: bad rule/)
  })
})
