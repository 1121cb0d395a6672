import { describe, expect, it } from 'vitest'
import { createSpace } from './space.ts'
import { createRng } from './random.ts'
import { CONSTRAINED, constrainedOk } from './test-spaces.ts'

describe('createSpace', () => {
  it('should enumerate exactly the configurations the predicate accepts', () => {
    const space = createSpace(CONSTRAINED)
    let expected = 0
    for (const tile of [8, 16, 32, 64, 128, 256]) for (const warps of [1, 2, 3, 4, 5]) for (const layout of ['row', 'col', 'tiled', 'swizzle']) for (const stages of [1, 2, 3]) {
      if (constrainedOk({ tile, warps, layout, stages })) expected++
    }
    expect(space.finite!.length).toBe(expected)
    expect(space.finite!.every((idx) => constrainedOk(space.toConfig(idx)))).toBe(true)
  })

  it('should encode categorical values one-hot and ordinal values by rank in [0, 1]', () => {
    const space = createSpace(CONSTRAINED)
    expect(space.dim).toBe(1 + 1 + 4 + 1)
    const out = new Float64Array(space.dim)
    space.encode(space.toIndices({ tile: 256, warps: 1, layout: 'tiled', stages: 2 })!, out, 0)
    expect(Array.from(out)).toEqual([1, 0, 0, 0, 1, 0, 0.5])
  })

  it('should use a finite list as the valid set, and list only valid one-parameter neighbours', () => {
    const list = [{ a: 1, b: 'x' }, { a: 2, b: 'x' }, { a: 2, b: 'y' }]
    const space = createSpace({ params: [{ name: 'a', type: 'ordinal', values: [1, 2, 3] }, { name: 'b', type: 'categorical', values: ['x', 'y'] }], validConfigs: list })
    expect(space.finite!.length).toBe(3)
    expect(space.isValid(space.toIndices({ a: 1, b: 'y' })!)).toBe(false)
    const nb = space.neighbours(space.toIndices({ a: 2, b: 'x' })!).map((i) => space.toConfig(i))
    expect(nb).toEqual([{ a: 1, b: 'x' }, { a: 2, b: 'y' }])
  })

  it('should sample only valid configurations outside the exclusion set, for predicate-only spaces too', () => {
    const space = createSpace(CONSTRAINED, { enumerateLimit: 10 })
    expect(space.finite).toBeUndefined()
    const rng = createRng(3)
    const seen = new Set<string>()
    for (let i = 0; i < 50; i++) {
      const idx = space.sample(rng, seen)!
      expect(constrainedOk(space.toConfig(idx))).toBe(true)
      expect(seen.has(space.key(idx))).toBe(false)
      seen.add(space.key(idx))
    }
  })

  it('should reject a list entry outside the parameters, and a space with nothing valid', () => {
    const params = [{ name: 'a', type: 'ordinal' as const, values: [1, 2] }]
    expect(() => createSpace({ params, validConfigs: [{ a: 3 }] })).toThrow(/outside the declared parameters/)
    expect(() => createSpace({ params, isValid: () => false })).toThrow(/no configuration/)
    expect(() => createSpace({ params: [{ name: 'a', type: 'integer', values: [1.5] }] })).toThrow(/integer/)
  })
})
