import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BodyBudget, checkRequest, DEFAULT_LIMITS, TOKEN_LIMIT_FIELDS, type RequestLimits } from './request.ts'

const limits: RequestLimits = { maxBodyBytes: 4096, maxDepth: 8, maxTokens: 100 }
const enc = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v))
const check = (v: unknown, path = '/v1/completions') => checkRequest(enc(v), path, limits)
const forwarded = (v: unknown, path = '/v1/completions') => {
  const r = check(v, path)
  if (!r.ok) throw new Error(`refused: ${r.message}`)
  return JSON.parse(new TextDecoder().decode(r.body)) as Record<string, unknown>
}
/** The limit llama-server reads: the first non-null of n_predict, max_completion_tokens, max_tokens (server-schema.cpp L44–47). */
const effective = (b: Record<string, unknown>) => TOKEN_LIMIT_FIELDS.map((f) => b[f]).find((v) => v !== undefined && v !== null)

describe('checkRequest', () => {
  it('should forward a valid body byte for byte when it already has a limit within the cap', () => {
    const bytes = enc({ prompt: 'hi', max_tokens: 12, stream: true, extra: { a: [1, 2] } })
    const r = checkRequest(bytes, '/v1/completions', limits)
    expect(r).toMatchObject({ ok: true, streamed: true, maxTokens: 12, rewritten: false })
    expect(r.ok && r.body).toBe(bytes)
  })

  it('should refuse a body nested deeper than the bound before parsing it, whatever the nesting is made of', () => {
    const deep = `{"prompt":${'['.repeat(1_000_000)}1${']'.repeat(1_000_000)}}`
    expect(checkRequest(enc(deep), '/v1/completions', DEFAULT_LIMITS)).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/nested more than 64 levels/) })
    expect(check({ prompt: 'x', a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } })).toMatchObject({ ok: true })
    expect(check({ prompt: 'x', a: { b: { c: { d: { e: { f: { g: { h: [1] } } } } } } } })).toMatchObject({ ok: false, status: 400 })
    // Brackets inside strings are text, not depth.
    expect(check({ prompt: '[[[[[[[[[[[[[[[[[[[[' })).toMatchObject({ ok: true })
  })

  it('should refuse a body over the size bound with 413', () => {
    expect(check({ prompt: 'x'.repeat(5000) })).toMatchObject({ ok: false, status: 413, message: expect.stringMatching(/--max-body-mb/) })
  })

  it('should refuse bytes that are not UTF-8, and text that is not JSON or not a request', () => {
    const bytes = enc('{"prompt":"ab"}')
    const bad = new Uint8Array([...bytes.subarray(0, 11), 0xff, ...bytes.subarray(11)])
    expect(checkRequest(bad, '/v1/completions', limits)).toMatchObject({ ok: false, status: 400, message: 'the request body is not valid UTF-8' })
    expect(check('{"prompt":')).toMatchObject({ ok: false, status: 400, message: 'the request body is not valid JSON' })
    expect(check([1, 2])).toMatchObject({ ok: false, status: 400 })
    expect(check({ max_tokens: 3 })).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/prompt/) })
    expect(check({ prompt: 'x' }, '/v1/chat/completions')).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/messages/) })
    expect(check({ prompt: 'x', stream: 'yes' })).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/stream/) })
  })

  it('should refuse token limits that are not finite integers from -1 up to the cap', () => {
    // JSON.parse reads 1e999 as Infinity: what reached llama-server as a number it could not read.
    expect(check('{"prompt":"x","max_tokens":1e999}')).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/max_tokens/) })
    expect(check({ prompt: 'x', max_tokens: 2.5 })).toMatchObject({ ok: false, status: 400 })
    expect(check({ prompt: 'x', n_predict: -2 })).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/n_predict/) })
    expect(check({ prompt: 'x', max_completion_tokens: '5' })).toMatchObject({ ok: false, status: 400 })
    expect(check({ prompt: 'x', max_tokens: 101 })).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/cap of 100 tokens/) })
  })

  it('should write the cap in where a request asks for no limit, -1 or null', () => {
    expect(forwarded({ prompt: 'x' })).toEqual({ prompt: 'x', max_tokens: 100 })
    expect(forwarded({ prompt: 'x', max_tokens: -1 })).toEqual({ prompt: 'x', max_tokens: 100 })
    expect(forwarded({ prompt: 'x', max_tokens: null })).toEqual({ prompt: 'x', max_tokens: 100 })
    // n_predict is read first by llama-server: a -1 there overrides a finite max_tokens.
    expect(forwarded({ prompt: 'x', n_predict: -1, max_tokens: 5 })).toEqual({ prompt: 'x', n_predict: 100, max_tokens: 5 })
    expect(forwarded({ messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: -1 }, '/v1/chat/completions')).toMatchObject({ max_completion_tokens: 100 })
    expect(forwarded({ prompt: 'x', n_predict: 0 })).toEqual({ prompt: 'x', n_predict: 0 })
  })

  it('should forward only bodies whose generation, as llama-server reads it, is bounded by the cap', () => {
    const limit = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer({ min: -3, max: 130 }), fc.double(), fc.constantFrom(1e300, -0))
    fc.assert(fc.property(limit, limit, limit, (n_predict, max_completion_tokens, max_tokens) => {
      const body: Record<string, unknown> = { prompt: 'x' }
      for (const [k, v] of Object.entries({ n_predict, max_completion_tokens, max_tokens })) if (v !== undefined) body[k] = v
      const r = check(body)
      if (!r.ok) return
      const got = effective(JSON.parse(new TextDecoder().decode(r.body)) as Record<string, unknown>)
      expect(typeof got).toBe('number')
      expect(Number.isInteger(got) && (got as number) >= 0 && (got as number) <= 100).toBe(true)
      expect(r.maxTokens).toBe(got)
    }))
  })
})

describe('BodyBudget', () => {
  it('should take bytes up to its total and give them back', () => {
    const b = new BodyBudget(10)
    expect(b.take(6)).toBe(true)
    expect(b.take(5)).toBe(false)
    expect(b.held).toBe(6)
    b.release(6)
    expect(b.take(10)).toBe(true)
    b.release(20)
    expect(b.held).toBe(0)
  })
})
