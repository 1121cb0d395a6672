/**
 * TypeScript types for the browser, generated from the OpenAPI document (whose schemas are the
 * routes' zod schemas, openapi.ts): each titled schema becomes a named type, and `ApiResponses` /
 * `ApiBodies` map 'METHOD /path' to a route's success response and request body. The dashboard
 * imports the result (apps/web/ui/api-types.gen.ts) instead of re-declaring the API by hand;
 * api-types.test.ts fails when the committed file is not what this gives for today's routes.
 *
 * A generator of our own rather than a library: it reads the small subset of JSON Schema that
 * zod's toJSONSchema writes, and refuses anything else, so nothing becomes `any` silently.
 */
type Json = Record<string, unknown>

export const API_TYPES_COMMAND = 'pnpm --filter @kerneltune/web gen:api'

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const key = (k: string) => (IDENT.test(k) ? k : `'${k.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`)
const literal = (v: unknown) => (typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(v))
const SCALARS: Record<string, string> = { string: 'string', number: 'number', integer: 'number', boolean: 'boolean', null: 'null' }

function union(parts: string[]): string {
  const unique = [...new Set(parts)]
  return unique.length === 1 ? unique[0]! : unique.map((p) => (!p.startsWith('{') && /[|&]/.test(p) ? `(${p})` : p)).join(' | ')
}

class Printer {
  /** Named types, in the order first met, so that the output is stable. */
  readonly named = new Map<string, string>()

  type(s: Json | boolean, depth: number, top = false): string {
    if (s === true) return 'unknown'
    if (s === false) return 'never'
    const title = typeof s.title === 'string' ? s.title : undefined
    if (title && !top) {
      this.define(title, s)
      return title
    }
    if ('$ref' in s) throw new Error(`api-types: a $ref (${String(s.$ref)}) in the OpenAPI document; give the recursive schema a title-free shape or extend the generator`)
    if ('const' in s) return literal(s.const)
    if (Array.isArray(s.enum)) return union(s.enum.map(literal))
    for (const k of ['anyOf', 'oneOf'] as const) {
      // An empty member is z.undefined() (unrepresentable, written as {}): a body that may be left out.
      if (Array.isArray(s[k])) return union((s[k] as Json[]).map((x) => (Object.keys(x).length ? this.type(x, depth) : 'undefined')))
    }
    if (Array.isArray(s.allOf)) return (s.allOf as Json[]).map((x) => this.type(x, depth)).join(' & ')
    if (Array.isArray(s.type)) return union((s.type as string[]).map((t) => this.type({ ...s, type: t }, depth)))
    const t = s.type
    if (t === undefined) return 'unknown'
    if (typeof t === 'string' && SCALARS[t]) return SCALARS[t]!
    if (t === 'array') {
      if (Array.isArray(s.prefixItems)) return `[${(s.prefixItems as Json[]).map((x) => this.type(x, depth)).join(', ')}]`
      const item = this.type((s.items as Json | undefined) ?? true, depth)
      return /^[\w.']+$/.test(item) ? `${item}[]` : `Array<${item}>`
    }
    if (t === 'object') return this.object(s, depth)
    throw new Error(`api-types: unsupported JSON Schema type ${JSON.stringify(t)}`)
  }

  private object(s: Json, depth: number): string {
    const props = (s.properties ?? {}) as Record<string, Json>
    const required = new Set((s.required ?? []) as string[])
    const extra = s.additionalProperties
    const rest = extra === undefined || extra === false ? undefined : this.type(extra as Json | boolean, depth + 1)
    const names = Object.keys(props)
    if (names.length === 0) return rest ? `Record<string, ${rest}>` : 'Record<string, never>'
    const pad = '  '.repeat(depth + 1)
    const lines = names.map((n) => {
      const doc = typeof props[n]!.description === 'string' ? `${pad}/** ${props[n]!.description as string} */\n` : ''
      return `${doc}${pad}${key(n)}${required.has(n) ? '' : '?'}: ${this.type(props[n]!, depth + 1)}`
    })
    // Known properties next to open ones: an index signature must admit them all.
    if (rest) lines.push(`${pad}[key: string]: unknown`)
    return `{\n${lines.join('\n')}\n${'  '.repeat(depth)}}`
  }

  define(title: string, s: Json): void {
    if (!IDENT.test(title)) throw new Error(`api-types: the schema title ${JSON.stringify(title)} is not a type name`)
    const body = this.type(s, 0, true)
    const seen = this.named.get(title)
    if (seen !== undefined && seen !== body) throw new Error(`api-types: two different schemas are titled ${title}; give one another title`)
    this.named.set(title, body)
  }
}

interface Operation { requestBody?: { content?: { 'application/json'?: { schema?: Json } } }; responses?: Record<string, { content?: Record<string, { schema?: Json }> }> }

/** The generated file's text for an OpenAPI document (openApiDocument's shape). */
export function apiTypesSource(doc: { paths: Record<string, Record<string, unknown>> }): string {
  const printer = new Printer()
  const responses: string[] = []
  const bodies: string[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods as Record<string, Operation>)) {
      const name = `'${method.toUpperCase()} ${path.replace(/^\/api\/v1\/kernels/, '')}'`
      const ok = Object.entries(op.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1]
      const schema = ok?.content?.['application/json']?.schema
      if (schema && Object.keys(schema).length) responses.push(`  ${name}: ${printer.type(schema, 1)}`)
      const body = op.requestBody?.content?.['application/json']?.schema
      if (body) bodies.push(`  ${name}: ${Object.keys(body).length ? printer.type(body, 1) : 'unknown'}`)
    }
  }
  const named = [...printer.named].map(([n, body]) => `export type ${n} = ${body}\n`)
  return [
    `// Generated from the server's OpenAPI document by apps/server/src/api-types.ts: do not edit.`,
    `// After changing a route or its schemas, run \`${API_TYPES_COMMAND}\`.`,
    '',
    ...named,
    '/** Each route\'s success response, by \'METHOD /path\' under /api/v1/kernels. */',
    `export interface ApiResponses {\n${responses.join('\n')}\n}`,
    '',
    '/** Each route\'s request body (as sent: before defaults), by \'METHOD /path\'. */',
    `export interface ApiBodies {\n${bodies.join('\n')}\n}`,
    '',
  ].join('\n')
}
