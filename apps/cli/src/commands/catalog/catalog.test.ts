import { describe, expect, it } from 'vitest'
import { createCatalog } from '@kerneltune/catalog'
import { requireHardwarePreset } from '@kerneltune/features'
import { ENGINE_NAMES } from '@kerneltune/compose'
import type { Io } from '../../cli/command.ts'
import { main } from '../../main.ts'

function memoryIo() {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env: {}, cwd: '/' }
  return { io, out: () => out.join(''), err: () => err.join('') }
}

async function run(...argv: string[]) {
  const m = memoryIo()
  const code = await main(argv, m.io)
  return { code, out: m.out(), err: m.err() }
}

describe('kerneltune catalog preview', () => {
  it('should count both modes and explain every pruned combination in --json', async () => {
    const r = await run('catalog', 'preview', '--hardware', 'h100-sxm', '--engine', 'vllm', '--json')
    expect(r.code).toBe(0)
    const p = JSON.parse(r.out)
    for (const mode of ['exhaustive', 'quick']) {
      const c = p.counts[mode]
      expect(c.legal + c.pruned + c.refused).toBe(c.total)
    }
    expect(p.counts.exhaustive.total).toBe(2592)
    expect(p.pruned.length).toBe(p.counts.exhaustive.pruned)
    expect(p.pruned.length).toBeGreaterThan(0)
    const ruleIds = new Set(p.rules.map((x: { id: string }) => x.id))
    for (const x of p.pruned) {
      expect(ruleIds.has(x.rule)).toBe(true)
      expect(x.violations[0].reason.length).toBeGreaterThan(0)
      expect(x.violations[0].source.length).toBeGreaterThan(0)
    }
    expect(p.legal.length + p.pruned.length + p.refused.length).toBe(2592)
    expect(p.target).toMatchObject({ hardware: 'h100-sxm', engine: 'vllm', capability: { smVersion: 90, generation: 'hopper' } })
  })

  it("should mark the combinations the engine's translator refuses, with its reason", async () => {
    const p = JSON.parse((await run('catalog', 'preview', '--hardware', 'h100-sxm', '--engine', 'vllm', '--mode', 'quick', '--json')).out)
    expect(p.engineRefusalsChecked).toBe(true)
    expect(p.counts.quick.refused).toBe(p.refused.length)
    for (const x of p.refused) {
      expect(x.combo[x.refusal.dimension]).toBe(x.refusal.value)
      expect(x.refusal.reason.length).toBeGreaterThan(0)
    }
    const engines = await run('catalog', 'preview', '--hardware', 'h100-sxm', '--engine', 'nosuch')
    expect(engines.code).toBe(2)
    // The flag parser refuses it, naming every built-in engine (ENGINE_NAMES, the flag's choices).
    expect(engines.err).toContain(`accepted values: ${ENGINE_NAMES.join(', ')}`)
  })

  it('should agree with the library on hardware-only legality', async () => {
    const r = await run('catalog', 'preview', '--hardware', 'a100-sxm-80gb', '--mode', 'quick', '--no-engine-check', '--json')
    const p = JSON.parse(r.out)
    const lib = createCatalog().count({ hardware: requireHardwarePreset('a100-sxm-80gb'), engine: 'vllm' }, { mode: 'quick' })
    expect(p.counts.quick).toEqual(lib)
    expect(p.engineRefusalsChecked).toBe(false)
    expect(p.pruned.length + p.legal.length).toBe(288)
  })

  it('should list every pruned combination with its rule in human output with --all', async () => {
    const json = JSON.parse((await run('catalog', 'preview', '--hardware', 'l4', '--mode', 'quick', '--json')).out)
    const r = await run('catalog', 'preview', '--hardware', 'l4', '--mode', 'quick', '--all')
    expect(r.code).toBe(0)
    for (const x of json.pruned) expect(r.out).toContain(x.hash)
    for (const id of new Set(json.pruned.map((x: { rule: string }) => x.rule))) expect(r.out).toContain(`Pruned by ${id}`)
    expect(r.out).toMatch(/mode\s+combinations\s+legal\s+pruned/)
  })

  it('should exit 2 without --hardware or with an unknown one', async () => {
    expect((await run('catalog', 'preview')).code).toBe(2)
    const u = await run('catalog', 'preview', '--hardware', 'nosuch-gpu')
    expect(u.code).toBe(2)
    expect(u.err).toMatch(/unknown hardware/)
  })
})

describe('kerneltune catalog explain and list', () => {
  it('should explain why a combination is pruned, with exit 3', async () => {
    const r = await run('catalog', 'explain', 'activation_dtype=fp8_e4m3,attention_backend=flash_attn_v3', '--hardware', 'a100-sxm-80gb', '--json')
    expect(r.code).toBe(3)
    const e = JSON.parse(r.out)
    expect(e).toMatchObject({ kind: 'combo', status: 'pruned', legal: false })
    expect(e.violations.map((v: { rule: string }) => v.rule)).toEqual(['fp8-needs-sm89', 'flash-attn-v3-needs-hopper'])
    expect(Object.keys(e.defaults)).toContain('kv_layout')
  })

  it('should accept a hash from the preview and pass a legal combination', async () => {
    const combo = 'attention_backend=flash_attn_v3,kv_layout=paged,matmul_path=cublas,activation_dtype=bf16,fusion_strategy=none,cuda_graph=per-shape'
    const r = await run('catalog', 'explain', combo, '--hardware', 'h100-sxm', '--json')
    const e = JSON.parse(r.out)
    expect(['legal', 'refused']).toContain(e.status)
    expect(r.code).toBe(e.status === 'legal' ? 0 : 3)
    const byHash = JSON.parse((await run('catalog', 'explain', e.hash, '--hardware', 'h100-sxm', '--json')).out)
    expect(byHash.combo).toEqual(e.combo)
    const bad = await run('catalog', 'explain', 'kv_layout=ring', '--hardware', 'h100-sxm', '--json')
    expect(JSON.parse(bad.out).status).toBe('invalid')
  })

  it('should explain rules and dimensions, and list the catalog', async () => {
    const rule = JSON.parse((await run('catalog', 'explain', 'flash-attn-v3-needs-hopper', '--json')).out)
    expect(rule.rule).toMatchObject({ id: 'flash-attn-v3-needs-hopper', kind: 'illegal' })
    expect(rule.rule.source).toMatch(/flash-attention/)
    const dim = JSON.parse((await run('catalog', 'explain', 'cuda_graph', '--json')).out)
    expect(dim.dimension.values.map((v: { id: string }) => v.id)).toEqual(['off', 'per-shape', 'dynamic'])
    expect((await run('catalog', 'explain', 'nope')).code).toBe(2)
    const list = JSON.parse((await run('catalog', 'list', '--json')).out)
    expect(list.dimensions.slice(0, 6).map((d: { id: string }) => d.id)).toEqual(['attention_backend', 'kv_layout', 'matmul_path', 'activation_dtype', 'fusion_strategy', 'cuda_graph'])
    expect(list.rules.length).toBeGreaterThanOrEqual(15)
    expect(list.hash).toMatch(/^[0-9a-f]{16}$/)
  })
})
