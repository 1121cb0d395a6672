import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { CORE_DIMENSION_VALUES } from '@kerneltune/core'
import { createCatalog } from './catalog.ts'
import { A100, H100, L4, M2, MI300X, T4 } from '../test/fixtures.ts'

const catalog = createCatalog()
const HARDWARE = [A100, H100, L4, T4, MI300X, M2]

describe('enumeration', () => {
  it('should count the full product in exhaustive mode and the quick subset in quick mode', () => {
    const target = { hardware: H100, engine: 'vllm' }
    expect(catalog.space(target).total).toBe(6 * 3 * 4 * 4 * 3 * 3)
    expect(catalog.space(target, 'quick').total).toBe(4 * 2 * 3 * 3 * 2 * 2)
    for (const hardware of HARDWARE) {
      for (const mode of ['exhaustive', 'quick'] as const) {
        const c = catalog.count({ hardware, engine: 'vllm' }, { mode })
        expect(c.legal + c.pruned + c.refused).toBe(c.total)
      }
    }
  })

  it('should agree with check() on every combo, and never list a combo twice', () => {
    for (const hardware of [A100, L4]) {
      const target = { hardware, engine: 'vllm' }
      const seen = new Set<string>()
      for (const e of catalog.enumerate(target)) {
        expect(seen.has(e.hash)).toBe(false)
        seen.add(e.hash)
        expect(catalog.check(e.combo, target).legal).toBe(e.status === 'legal')
      }
      expect(seen.size).toBe(2592)
    }
  })

  it('should have as many quick combos of each status as the exhaustive listing has inside the quick values', () => {
    const target = { hardware: L4, engine: 'vllm' }
    const p = catalog.preview(target, { mode: 'exhaustive' })
    const quick = catalog.preview(target, { mode: 'quick' })
    const q = new Map(catalog.space(target, 'quick').dimensions.map((d) => [d.id, new Set(d.values)]))
    const inQuick = (c: Record<string, string>) => Object.entries(c).every(([k, v]) => q.get(k)!.has(v))
    expect(p.legal.filter((x) => inQuick(x.combo)).length).toBe(quick.legal.length)
    expect(quick.counts.quick).toEqual(p.counts.quick)
    expect(quick.legal.length + quick.pruned.length).toBe(288)
  })

  it('should explain every pruned combination with rules that apply and that it violates', () => {
    const p = catalog.preview({ hardware: A100, engine: 'vllm' })
    expect(p.pruned.length).toBe(p.counts.exhaustive.pruned)
    for (const x of p.pruned) {
      expect(x.violations.length).toBeGreaterThan(0)
      expect(x.rule).toBe(x.violations[0]!.rule)
      for (const v of x.violations) {
        expect(v.reason.length).toBeGreaterThan(0)
        expect(v.source.length).toBeGreaterThan(0)
      }
    }
    const byRule = Object.fromEntries(p.rules.map((r) => [r.id, r.removes]))
    // On an A100, FP8 is 2 of 4 dtypes: half of all combos hit fp8-needs-sm89.
    expect(byRule['fp8-needs-sm89']).toBe(2592 / 2)
    expect(byRule['flash-attn-v3-needs-hopper']).toBe(2592 / 6)
    expect(p.target).toMatchObject({ engine: 'vllm', capability: { smVersion: 80 } })
  })

  it('should be lazy: the first combo of an astronomically large space comes back at once', () => {
    const huge = createCatalog({
      extensions: [{
        engine: 'big',
        extension: {
          dimensions: Array.from({ length: 12 }, (_, i) => ({ id: `knob_${i}`, title: `Knob ${i}`, description: 'x', defaultValue: 'v0', values: Array.from({ length: 10 }, (_, j) => ({ id: `v${j}`, description: 'x' })) })),
          rules: [],
        },
      }],
    })
    const it = huge.enumerate({ hardware: H100, engine: 'big' })
    const first = it.next()
    expect(first.done).toBe(false)
    expect(huge.space({ hardware: H100, engine: 'big' }).total).toBe(2592 * 1e12)
  })

  it('should mark engine refusals, synchronously or through an async hook', async () => {
    const refuse = (c: Record<string, string>) => (c.kv_layout === 'contiguous' ? { dimension: 'kv_layout', value: 'contiguous', reason: 'vLLM always pages its KV cache' } : undefined)
    const target = { hardware: H100, engine: 'vllm' }
    const p = catalog.preview(target, { refuse })
    expect(p.engineRefusalsChecked).toBe(true)
    expect(p.refused.length).toBeGreaterThan(0)
    expect(p.refused.every((r) => r.combo.kv_layout === 'contiguous' && r.refusal.reason.includes('pages'))).toBe(true)
    expect(p.legal.some((r) => r.combo.kv_layout === 'contiguous')).toBe(false)
    expect(p.counts.exhaustive.refusedBy['kv_layout=contiguous']).toBe(p.refused.length)
    const a = await catalog.previewAsync(target, { refuse: async (c) => refuse(c) })
    expect(a.counts).toEqual(p.counts)
    expect(() => [...catalog.enumerate(target, { refuse: (async () => undefined) as never })]).toThrow(/enumerateAsync/)
    expect(() => catalog.count(target, { mode: 'fast' as never })).toThrow(/accepted: exhaustive, quick/)
  })

  it('should give every legal combo a value of each dimension (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HARDWARE), fc.constantFrom('exhaustive' as const, 'quick' as const), (hardware, mode) => {
        let n = 0
        for (const { combo, hash } of catalog.legalCombos({ hardware, engine: 'tgi' }, { mode })) {
          n++
          for (const [k, values] of Object.entries(CORE_DIMENSION_VALUES)) expect(values as readonly string[]).toContain(combo[k])
          expect(hash).toMatch(/^[0-9a-f]{16}$/)
        }
        expect(n).toBe(catalog.count({ hardware, engine: 'tgi' }, { mode }).legal)
      }),
      { numRuns: 12 },
    )
  })
})

describe('preview of a space too large to classify', () => {
  it('should refuse an exhaustive preview and scan only the quick space, saying the exhaustive counts are unknown', () => {
    const target = { hardware: H100, engine: 'vllm' }
    expect(() => catalog.preview(target, { maxScan: 100 })).toThrow(/2,592 combinations, too many to preview/)
    const quick = catalog.preview(target, { mode: 'quick', maxScan: 100 })
    expect(quick.counts.exhaustive).toMatchObject({ total: 2592, counted: false, legal: 0 })
    expect(quick.counts.quick.counted).toBe(true)
    expect(quick.counts.quick).toEqual(catalog.preview(target, { mode: 'quick' }).counts.quick)
    expect(quick.legal.length + quick.pruned.length).toBe(quick.counts.quick.total)
  })
})
