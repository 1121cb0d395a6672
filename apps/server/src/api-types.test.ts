import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { API_TYPES_COMMAND, apiTypesSource } from './api-types.ts'
import { API_BASE, ROUTES } from './app.ts'
import { route } from './http.ts'
import { openApiDocument } from './openapi.ts'

const COMMITTED = new URL('../../web/ui/api-types.gen.ts', import.meta.url)

describe('the dashboard\'s generated API types', () => {
  it('should be what the server\'s routes and schemas give today', () => {
    const fresh = apiTypesSource(openApiDocument(API_BASE, ROUTES))
    const committed = readFileSync(COMMITTED, 'utf8')
    expect(committed === fresh, `apps/web/ui/api-types.gen.ts is out of date with the server's schemas: run \`${API_TYPES_COMMAND}\` and commit the result`).toBe(true)
  })

  it('should change when a response schema changes, so that a stale file fails the test above', () => {
    const Thing = z.object({ id: z.string() }).meta({ title: 'Thing' })
    const before = apiTypesSource(openApiDocument(API_BASE, [route({ method: 'get', path: '/things/:id', summary: 's', role: 'viewer', response: Thing }, async () => ({}))]))
    const After = Thing.extend({ size: z.number().optional() }).meta({ title: 'Thing' })
    const after = apiTypesSource(openApiDocument(API_BASE, [route({ method: 'get', path: '/things/:id', summary: 's', role: 'viewer', response: After }, async () => ({}))]))
    expect(before).toContain('export type Thing = {\n  id: string\n}')
    expect(before).toContain(`'GET /things/{id}': Thing`)
    expect(after).toContain('export type Thing = {\n  id: string\n  size?: number\n}')
  })

  it('should write unions, nullables, records, enums, arrays and request bodies as TypeScript', () => {
    const Inner = z.object({ n: z.number() }).meta({ title: 'Inner' })
    const Out = z.object({
      kind: z.enum(['a', 'b']), when: z.string().nullable(), tags: z.record(z.string(), z.array(z.string())),
      inner: z.array(Inner), either: z.union([z.literal(true), z.number()]), 'odd-key': z.boolean().optional(),
    }).meta({ title: 'Out' })
    const src = apiTypesSource(openApiDocument(API_BASE, [route({ method: 'post', path: '/x', summary: 's', role: 'operator', body: z.union([z.object({ force: z.boolean() }).strict(), z.undefined()]), response: Out }, async () => ({}))]))
    expect(src).toContain('export type Inner = {\n  n: number\n}')
    expect(src).toContain([
      'export type Out = {', "  kind: 'a' | 'b'", '  when: string | null', '  tags: Record<string, string[]>', '  inner: Inner[]', '  either: true | number', "  'odd-key'?: boolean", '}',
    ].join('\n'))
    expect(src).toContain(`'POST /x': {\n    force: boolean\n  } | undefined`)
  })

  it('should refuse two different schemas under one title rather than pick one', () => {
    const A = z.object({ a: z.string() }).meta({ title: 'Same' })
    const B = z.object({ b: z.string() }).meta({ title: 'Same' })
    const routes = [A, B].map((response, i) => route({ method: 'get', path: `/r${i}`, summary: 's', role: 'viewer', response }, async () => ({})))
    expect(() => apiTypesSource(openApiDocument(API_BASE, routes))).toThrow(/two different schemas are titled Same/)
  })
})
