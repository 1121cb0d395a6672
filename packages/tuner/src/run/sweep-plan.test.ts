import { describe, expect, it } from 'vitest'
import type { CatalogExtension, Combo } from '@kerneltune/core'
import { planThroughCatalog } from '../index.ts'
import { HARDWARE } from '../test-fixtures.ts'

// A sweep's plan: the space through the catalog with the engine's rules, the defaults' own
// combination left out (it is the baseline), the pruned ones kept with their rule.
describe('planThroughCatalog', () => {
  const dim = (id: string, ids: string[], defaultValue: string) => ({ id, title: id, description: id, values: ids.map((x) => ({ id: x, description: x })), defaultValue, engines: ['eng'], quickValues: ids })
  const ext: CatalogExtension = {
    dimensions: [dim('threads', ['1', '2', '4'], '4'), dim('batch', ['8', '16'], '16')],
    rules: [{ id: 'eng/no-8-at-1', kind: 'illegal', reason: 'one thread cannot take batch 8', source: 'test', dimensions: ['threads', 'batch'], violates: (c) => c.threads === '1' && c.batch === '8' }],
    coreDimensions: [],
  }
  const nonDefault = (c: Combo): Combo => Object.fromEntries(Object.entries(c).filter(([k, v]) => v !== { threads: '4', batch: '16' }[k]))

  it('should plan every legal non-default combination, and say which rule pruned the rest', () => {
    const plan = planThroughCatalog('quick', { threads: ['1', '2', '4'], batch: ['8', '16'] }, ext, nonDefault, { ...HARDWARE, kind: 'gpu', unifiedMemory: false, sources: [] }, 'eng')
    expect(plan.candidates.map((c) => c.combo).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      { threads: '1', batch: '16' }, { threads: '2', batch: '16' }, { threads: '2', batch: '8' }, { threads: '4', batch: '8' },
    ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))))
    expect(plan.pruned).toEqual([{ combo: { threads: '1', batch: '8' }, rule: 'eng/no-8-at-1' }])
    expect(plan.catalog.hash).toMatch(/\S/)
    expect(plan.mode).toBe('quick')
  })
})
