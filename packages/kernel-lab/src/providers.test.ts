import { describe, it, expect } from 'vitest'
import { createRegistry } from '@kerneltune/core'
import { humanProvider, llmProvider } from './llm-provider.ts'
import { templateProvider } from './providers.ts'

describe('kernel generators', () => {
  it('should register all three providers in the core registry under one contract', () => {
    const registry = createRegistry([templateProvider(), llmProvider({ endpoint: 'http://127.0.0.1:1' }), humanProvider({ name: 'k.js', source: 'export default () => 1' })])
    expect(registry.list('kernel-generator').map((p) => p.name)).toEqual(['template', 'llm', 'human'])
  })
  it('should generate GEMM and GEMV template candidates with provenance', async () => {
    const gemm = await templateProvider().generate({ kind: 'gemm', problem: { format: 'q4_0', m: 8, n: 64, k: 128 }, count: 2 })
    expect(gemm.map((c) => [c.provider, c.kernelFamily, c.provenance.parent.startsWith('gemm default')])).toEqual([['template', 'gemm/q4_0', true], ['template', 'gemm/q4_0', true]])
  })
})
