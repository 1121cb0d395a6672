import { describe, it, expect } from 'vitest'
import type { RegistryEntry } from '@kerneltune/core'
import { selectKernel, usageNotes } from './selection.ts'

const entry = (id: string, status: RegistryEntry['status'], ms: number, family = 'gemv/q4_0'): RegistryEntry => ({
  id, tenant: 't', name: `k-${id}`, kernelFamily: family, provider: 'template', source: '', status, metadata: { timings: { medianMs: ms } }, createdAt: '', updatedAt: '',
})

describe('selectKernel', () => {
  it('should select only approved kernels, the fastest first', () => {
    const s = selectKernel([entry('a', 'proposed', 1), entry('b', 'approved', 5), entry('c', 'approved', 3), entry('d', 'deprecated', 2), entry('e', 'approved', 0.1, 'gemm/q4_0')], 'gemv/q4_0')
    expect(s.selected?.id).toBe('c')
    expect(s.excluded.map((x) => [x.id, x.status])).toEqual([['a', 'proposed'], ['d', 'deprecated']])
  })
  it('should select nothing when nothing is approved', () => {
    expect(selectKernel([entry('a', 'proposed', 1)], 'gemv/q4_0').selected).toBeNull()
  })
  it('should note deprecated kernels a result used', () => {
    expect(usageNotes(['b', 'd', 'zz'], [entry('b', 'approved', 1), entry('d', 'deprecated', 1)])).toEqual([
      'registry kernel k-d (d) used by this result has been deprecated since; it will not be selected again',
      'registry kernel zz is no longer in the registry',
    ])
  })
  it('should say how a result saw the kernel when told', () => {
    expect(usageNotes(['d'], [entry('d', 'deprecated', 1)], 'measured (but not used) by this result')).toEqual([
      'registry kernel k-d (d) measured (but not used) by this result has been deprecated since; it will not be selected again',
    ])
  })
})
