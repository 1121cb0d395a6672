import { describe, expect, it } from 'vitest'
import { boundedJsonRecord, jsonDepth, jsonTextDepth } from './bounded-json.ts'
import { NameSchema, normaliseTenant, TenantNameSchema } from './names.ts'

describe('NameSchema', () => {
  it.each(['k', 'gemv q4_0 v2', 'Ünïcode 内核', 'a'.repeat(200), 'tab\u00a0inside'])('should accept %j', (name) => {
    expect(NameSchema.safeParse(name).success).toBe(true)
  })

  it.each([
    ['', /at least 1|>=1/], ['a'.repeat(201), /200/],
    ['a\u0000b', /U\+0000 at position 1/], ['\u001b[31mred', /U\+001B at position 0/], ['x\u007f', /U\+007F/],
    ['x\u0080', /U\+0080/], ['x\u009f', /U\+009F/], ['x\u2028y', /U\+2028/], ['x\u202ey', /U\+202E/], ['x\u2066y', /U\+2066/],
    [' lead', /whitespace/], ['trail ', /whitespace/], ['trail\u3000', /whitespace/],
  ])('should refuse %j', (name, why) => {
    const r = NameSchema.safeParse(name)
    expect(r.success).toBe(false)
    expect(r.error!.issues.map((i) => i.message).join('; ')).toMatch(why)
  })
})

describe('TenantNameSchema', () => {
  it.each([['acme', 'acme'], ['ACME', 'acme'], ['ＡＣＭＥ', 'acme'], ['Team_1.prod-eu', 'team_1.prod-eu'], ['.hidden', '.hidden']])('should take %j as %j', (given, stored) => {
    expect(TenantNameSchema.parse(given)).toBe(stored)
  })

  it.each(['', '.', '..', '....', 'a b', 'a/b', 'a\u0000', 'a'.repeat(101), 'é'])('should refuse %j', (given) => {
    expect(TenantNameSchema.safeParse(given).success).toBe(false)
  })

  it('should normalise idempotently', () => {
    for (const t of ['ACME', 'ＡＣＭＥ', 'ǅ', 'ﬁ']) expect(normaliseTenant(normaliseTenant(t))).toBe(normaliseTenant(t))
  })
})

describe('bounded JSON', () => {
  const nested = (depth: number): unknown => {
    let v: unknown = {}
    for (let i = 1; i < depth; i++) v = { a: v }
    return v
  }

  it('should measure depth iteratively, even 100,000 levels down', () => {
    expect(jsonDepth(1)).toBe(0)
    expect(jsonDepth({})).toBe(1)
    expect(jsonDepth({ a: [1, { b: [] }] })).toBe(4)
    expect(jsonDepth(nested(100_000))).toBe(100_000)
    expect(jsonDepth(nested(100_000), 10)).toBe(11)
  })

  it('should measure text depth outside strings only', () => {
    expect(jsonTextDepth('{"a":"{{{[[["}')).toBe(1)
    expect(jsonTextDepth('{"a":"\\"{{"}')).toBe(1)
    expect(jsonTextDepth('[[{"a":[]}]]')).toBe(4)
    expect(jsonTextDepth('[' .repeat(1_000_000), 64)).toBe(65)
  })

  it('should refuse a record past its depth or size and accept one at them', () => {
    const s = boundedJsonRecord({ maxDepth: 3, maxBytes: 20 })
    expect(s.safeParse(nested(3)).success).toBe(true)
    expect(s.safeParse(nested(4)).error!.issues[0]!.message).toMatch(/more than 3 levels/)
    expect(s.safeParse({ a: 'x'.repeat(20) }).error!.issues[0]!.message).toMatch(/over the limit of 20/)
  })
})
