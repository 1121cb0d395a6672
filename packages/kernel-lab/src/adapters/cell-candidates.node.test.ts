import { describe, expect, it } from 'vitest'
import type { RegistryEntry } from '@kerneltune/core'
import { registryCandidates } from './cell-candidates.node.ts'

const entry = (id: string, status: RegistryEntry['status'], family = 'gemv/q4_0'): RegistryEntry => ({
  id, tenant: 't', name: `k-${id}`, kernelFamily: family, provider: 'template', source: '', status, metadata: {}, createdAt: '', updatedAt: '',
})
const cell = (bits: number[], kernel: { kind: string; format: string } | null) => ({ bits, batch: 1, hidden: 64, best: kernel ? { latency_ms: 1, kernel } : null })

// The sandboxed run of a selected kernel is covered by verify.test.ts (it needs Deno); these are the cells that never reach it.
describe('registryCandidates', () => {
  it('should pass over mixed and untuned cells, and list the excluded entries of a family with no approved kernel', async () => {
    const out = await registryCandidates(
      [cell([2, 4], { kind: 'gemv', format: 'q4_0' }), cell([4], null), cell([4], { kind: 'gemv', format: 'q4_0' })],
      [entry('p', 'proposed'), entry('d', 'deprecated'), entry('g', 'approved', 'gemm/q4_0')],
      { warmup: 0, iterations: 1, intermediateMultiplier: 4 },
    )
    expect(out[0]).toBeNull()
    expect(out[1]).toBeNull()
    expect(out[2]).toMatchObject({ family: 'gemv/q4_0', selected: null })
    expect(out[2]!.excluded.map((e) => [e.id, e.status])).toEqual([['p', 'proposed'], ['d', 'deprecated']])
  })
})
