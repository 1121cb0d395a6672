import { describe, expect, it } from 'vitest'
import { seededRandom } from './prng.ts'
import { parseDatasetJsonl, requestSpec, type WorkloadSpec } from './workload.ts'

describe('requestSpec', () => {
  it('should give completions exactly the asked number of prompt token ids, inside the id range', () => {
    const r = requestSpec({ kind: 'synthetic', promptTokens: 37, outputTokens: 5, tokenIdRange: [10, 20] }, 'completions', 0, seededRandom(1))
    expect(Array.isArray(r.prompt) && r.prompt.length).toBe(37)
    expect((r.prompt as number[]).every((t) => t >= 10 && t < 20)).toBe(true)
    expect(r.outputTokens).toBe(5)
  })

  it('should draw uniform lengths within the bounds, reproducibly from the seed', () => {
    const spec: WorkloadSpec = { kind: 'synthetic', promptTokens: [4, 8], outputTokens: [2, 3] }
    const a = Array.from({ length: 50 }, (_, i) => requestSpec(spec, 'completions', i, seededRandom(7)))
    const draw = (seed: number) => {
      const rnd = seededRandom(seed)
      return Array.from({ length: 50 }, (_, i) => requestSpec(spec, 'completions', i, rnd).outputTokens)
    }
    expect(a.every((r) => (r.prompt as number[]).length >= 4 && (r.prompt as number[]).length <= 8)).toBe(true)
    expect(draw(3)).toEqual(draw(3))
    expect(new Set(draw(3))).toEqual(new Set([2, 3]))
  })

  it('should turn prompts into text for chat', () => {
    const r = requestSpec({ kind: 'synthetic', promptTokens: 3, outputTokens: 2 }, 'chat', 0, seededRandom(1))
    expect(typeof r.prompt).toBe('string')
  })
})

describe('parseDatasetJsonl', () => {
  it('should read prompts and optional output lengths, one object per line', () => {
    const d = parseDatasetJsonl('{"prompt":"hi","output_tokens":4}\n\n{"prompt":[1,2,3]}\n')
    expect(d).toEqual([{ prompt: 'hi', outputTokens: 4 }, { prompt: [1, 2, 3] }])
  })

  it('should say which line is wrong', () => {
    expect(() => parseDatasetJsonl('{"prompt":"a"}\nnot json')).toThrow(/line 2/)
    expect(() => parseDatasetJsonl('{"text":"a"}')).toThrow(/line 1/)
  })
})
