import { describe, expect, it } from 'vitest'
import { checkToken, corsHeaders, DEFAULT_TIMEOUTS, hostAllowed, hostOf, originAllowed, parseOrigin, serverTimeouts, tokenAccepted } from './access.ts'

describe('hostAllowed', () => {
  it('should let only loopback Host names through when the gateway listens on loopback', () => {
    for (const h of ['127.0.0.1:8000', 'localhost:8000', 'localhost', '[::1]:8000', '127.1.2.3']) expect(hostAllowed(h, '127.0.0.1')).toBe(true)
    for (const h of ['evil.example:8000', 'evil.example', '127.0.0.1.evil.example', '', undefined, 'localhost:8000:1', '10.0.0.1:8000']) expect(hostAllowed(h, '127.0.0.1')).toBe(false)
    expect(hostAllowed('evil.example', '::1')).toBe(false)
  })

  it('should leave the Host to the network when the gateway listens elsewhere', () => {
    expect(hostAllowed('gateway.internal:8000', '0.0.0.0')).toBe(true)
    expect(hostOf('[::1]:80')).toBe('::1')
    expect(hostOf('a b')).toBeUndefined()
  })
})

describe('tokenAccepted', () => {
  it('should need the exact bearer token when one is set, and nothing otherwise', () => {
    const t = 'a-token-of-enough-length'
    expect(tokenAccepted(undefined, undefined)).toBe(true)
    expect(tokenAccepted(`Bearer ${t}`, t)).toBe(true)
    expect(tokenAccepted(`bearer ${t}`, t)).toBe(true)
    for (const h of [undefined, '', t, `Bearer ${t}x`, `Bearer ${t.slice(0, -1)}`, `Basic ${t}`, `Bearer ${t} extra`]) expect(tokenAccepted(h, t)).toBe(false)
    expect(() => checkToken('short')).toThrow(/at least 16 characters/)
    expect(() => checkToken(t)).not.toThrow()
  })
})

describe('origins', () => {
  it('should allow no web origin unless named, and answer CORS for named ones only', () => {
    expect(originAllowed(undefined, [])).toBe(true)
    expect(originAllowed('https://evil.example', [])).toBe(false)
    expect(originAllowed('http://localhost:5173', ['http://localhost:5173'])).toBe(true)
    expect(corsHeaders('https://evil.example', ['http://localhost:5173'])).toEqual({})
    expect(corsHeaders('http://localhost:5173', ['http://localhost:5173'])).toEqual({ 'access-control-allow-origin': 'http://localhost:5173', vary: 'Origin' })
  })

  it('should accept origins as scheme://host[:port] and refuse the wildcard and paths', () => {
    expect(parseOrigin('http://localhost:5173/')).toBe('http://localhost:5173')
    for (const bad of ['*', 'localhost:5173', 'http://a.example/app', 'file:///x']) expect(() => parseOrigin(bad)).toThrow(/not an origin/)
  })
})

describe('serverTimeouts', () => {
  it('should default to the server\'s header, request and keep-alive timeouts and refuse impossible ones', () => {
    expect(DEFAULT_TIMEOUTS).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000 })
    expect(serverTimeouts({})).toEqual({ headersTimeout: 10_000, requestTimeout: 60_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1000 })
    expect(() => serverTimeouts({ headersTimeoutMs: 2000, requestTimeoutMs: 1000 })).toThrow(/must not exceed/)
    expect(() => serverTimeouts({ keepAliveTimeoutMs: 0 })).toThrow(/100 ms to 1 hour/)
  })
})
