import { describe, it, expect } from 'vitest'
import { extractWgsl, llmPrompt, llmProvider } from './llm-provider.ts'

const problem = { format: 'q4_0' as const, m: 1, n: 64, k: 256 }

describe('llm provider', () => {
  it('should put the contract and the reference kernel in the prompt', () => {
    const p = llmPrompt({ kind: 'gemv', problem, count: 1 })
    expect(p).toContain('fn wgroup(')
    expect(p).toContain('@compute @workgroup_size(64, 1, 1)')
    expect(p).toContain('m=1, n=64, k=256')
  })
  it('should take the first wgsl block of a reply, or the whole reply', () => {
    expect(extractWgsl('text\n```wgsl\nfn main() {}\n```\nmore')).toBe('fn main() {}')
    expect(extractWgsl('  nonsense tokens ')).toBe('nonsense tokens')
  })
  it('should turn each reply into a candidate module with the prompt as provenance', async () => {
    const seen: string[] = []
    const fake = (async (_url: string, init: { body: string }) => {
      seen.push(JSON.parse(init.body).messages[0].content)
      return new Response(JSON.stringify({ model: 'm', choices: [{ message: { content: '```wgsl\n@compute @workgroup_size(1) fn main() {}\n```' } }] }), { status: 200 })
    }) as unknown as typeof fetch
    const cs = await llmProvider({ endpoint: 'http://x', fetch: fake }).generate({ kind: 'gemv', problem, count: 2 })
    expect(cs).toHaveLength(2)
    expect(cs[0]!.source).toContain('@compute @workgroup_size(1) fn main() {}')
    expect(cs[0]!.provenance.prompt).toBe(seen[0])
  })
})
