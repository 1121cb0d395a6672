import { describe, expect, it } from 'vitest'
import { boundedJsonRecord, jsonDepth, jsonTextDepth } from './bounded-json.ts'
import { hiddenTextIn, NameSchema, normaliseTenant, TenantNameSchema, textSchema } from './names.ts'

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

describe('textSchema', () => {
  const Text = textSchema(1000)

  it.each([
    '', 'fn main() {}', 'line one\nline two\n', '\tindented\r\nwith CRLF\r\n', 'Ünïcode 内核 \u00a0', '\ufeffa BOM at the start',
  ])('should accept source code and prose %j', (text) => {
    expect(Text.safeParse(text).success).toBe(true)
  })

  it.each([
    ['abc\u0000def-hidden', /U\+0000 \(at position 3\)/], ['\u001b[2Kerased', /U\+001B/], ['ok\rhidden', /U\+000D \(at position 2\)/],
    ['x\u000b', /U\+000B/], ['x\u000c', /U\+000C/], ['x\u007f', /U\+007F/], ['x\u0085', /U\+0085/], ['x\u2029', /U\+2029/],
    ['if (isAdmin) { /* \u202e } \u2066 */', /U\+202E/], ['a\u2069b', /U\+2069/], ['a'.repeat(1001), /1000/],
  ])('should refuse %j', (text, why) => {
    const r = Text.safeParse(text)
    expect(r.success).toBe(false)
    expect(r.error!.issues.map((i) => i.message).join('; ')).toMatch(why)
  })

  it('should name the character and its position but quote none of the text', () => {
    expect(hiddenTextIn('secret\u0000more-secret')).not.toMatch(/secret/)
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
