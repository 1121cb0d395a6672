import { describe, expect, it } from 'vitest'
import type { EnginePlugin } from '@kerneltune/core'
import { createCatalog } from './catalog.ts'
import { comboText, engineRefuseHook, explainCombo, parseComboText, previewGroups } from './explain.ts'
import { comboHash } from './hash.ts'
import { A100, H100 } from '../test/fixtures.ts'

const catalog = createCatalog()

describe('parseComboText', () => {
  it('should read dimension=value pairs and write them back', () => {
    const combo = parseComboText(' attention_backend=flash_attn_v3, kv_layout=paged ')
    expect(combo).toEqual({ attention_backend: 'flash_attn_v3', kv_layout: 'paged' })
    expect(comboText(combo)).toBe('attention_backend=flash_attn_v3,kv_layout=paged')
  })

  it('should refuse bad syntax, a repeated dimension and an empty combination', () => {
    expect(() => parseComboText('attention_backend')).toThrow(/is not dimension=value/)
    expect(() => parseComboText('kv_layout=paged,kv_layout=contiguous')).toThrow(/given twice/)
    expect(() => parseComboText(' , ')).toThrow(/empty combination/)
  })
})

describe('explainCombo', () => {
  it('should say pruned with the rule, legal with the defaults, and ask the engine only about a legal one', async () => {
    const asked: string[] = []
    const refuse = async (c: Record<string, string>) => (asked.push(comboText(c)), c.kv_layout === 'paged' ? { dimension: 'kv_layout', value: 'paged', reason: 'test' } : undefined)
    const fp8 = { activation_dtype: 'fp8_e4m3' }
    const pruned = await explainCombo(catalog, fp8, { hardware: A100, engine: 'vllm' }, refuse)
    expect(pruned).toMatchObject({ status: 'pruned', hash: comboHash(fp8), refusal: undefined })
    expect(pruned.check.violations.map((v) => v.rule)).toContain('fp8-needs-sm89')
    expect(asked).toEqual([])
    const legal = await explainCombo(catalog, fp8, { hardware: H100, engine: 'vllm' }, refuse)
    expect(legal.status).toBe('legal')
    expect(legal.defaults.activation_dtype).toBeUndefined()
    expect(Object.keys(legal.defaults)).toContain('kv_layout')
    expect((await explainCombo(catalog, { kv_layout: 'paged' }, { hardware: H100, engine: 'vllm' }, refuse))).toMatchObject({ status: 'refused', refusal: { dimension: 'kv_layout' } })
    expect((await explainCombo(catalog, { kv_layout: 'nope' }, { hardware: H100, engine: 'vllm' })).status).toBe('invalid')
  })
})

describe('engineRefuseHook and previewGroups', () => {
  it('should turn translate refusals into the refuse hook and group a preview by what removed each combination', async () => {
    const engine = {
      name: 'toy', kind: 'engine', apiVersion: 1, displayName: 'Toy',
      translate: async (combo: Record<string, string>) => (combo.kv_layout === 'paged'
        ? { ok: false, engine: 'toy', version: '1', dimension: 'kv_layout', value: 'paged', reason: 'no paging' }
        : { ok: true, engine: 'toy', version: '1', argv: [], env: {}, files: {}, notes: [] }),
    } as unknown as EnginePlugin
    const refuse = engineRefuseHook(engine)
    expect(await refuse({ kv_layout: 'paged' })).toEqual({ dimension: 'kv_layout', value: 'paged', reason: 'no paging' })
    expect(await refuse({ kv_layout: 'contiguous' })).toBeUndefined()
    const p = await catalog.previewAsync({ hardware: A100, engine: 'vllm' }, { mode: 'quick', refuse })
    const g = previewGroups(p)
    expect([...g.pruned.values()].flat()).toHaveLength(p.pruned.length)
    for (const [rule, xs] of g.pruned) for (const x of xs) expect(x.rule).toBe(rule)
    expect(p.refused.length).toBeGreaterThan(0)
    expect([...g.refused.keys()]).toEqual(['kv_layout=paged'])
    expect(g.refused.get('kv_layout=paged')).toHaveLength(p.refused.length)
  })
})
