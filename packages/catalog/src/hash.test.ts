import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { canonicalJson, comboHash, fnv1a64 } from './hash.ts'

// Reference FNV-1a 64 in BigInt arithmetic, straight from the definition.
function fnvReference(text: string): string {
  let h = 0xcbf29ce484222325n
  for (const b of new TextEncoder().encode(text)) {
    h ^= BigInt(b)
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn
  }
  return h.toString(16).padStart(16, '0')
}

describe('fnv1a64', () => {
  it('should match the published FNV-1a 64 test vectors', () => {
    // From the FNV reference test suite (isthe.com/chongo/tech/comp/fnv).
    expect(fnv1a64('')).toBe('cbf29ce484222325')
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c')
    expect(fnv1a64('foobar')).toBe('85944171f73967e8')
  })

  it('should agree with a BigInt implementation on any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (s) => {
      expect(fnv1a64(s)).toBe(fnvReference(s))
    }))
  })
})

describe('canonicalJson and comboHash', () => {
  it('should sort keys at every level and drop undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}')
  })

  it('should hash a combo independently of key order, and differently for different combos', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), fc.string({ minLength: 1, maxLength: 6 })), (combo) => {
        const reversed = Object.fromEntries(Object.entries(combo).reverse())
        expect(comboHash(reversed)).toBe(comboHash(combo))
        expect(comboHash(combo)).toMatch(/^[0-9a-f]{16}$/)
      }),
    )
    expect(comboHash({ kv_layout: 'paged' })).not.toBe(comboHash({ kv_layout: 'chunked' }))
  })
})
