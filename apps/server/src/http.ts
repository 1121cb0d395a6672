/**
 * Route declarations shared by the router, the role checks and the OpenAPI document: each route
 * names its method, path, required role and the zod schemas of its path parameters, query and
 * body. `mount` validates all three before the handler runs (a bad one is a 400 listing every
 * problem) and maps kerneltune errors to HTTP statuses.
 */
import { controlCharacterIn, formatIssues, isKerneltuneError, jsonTextDepth, KerneltuneError, type ErrorCode, type Role } from '@kerneltune/core'
import type { Context, Hono } from 'hono'
import { z } from 'zod'
import type { AppDeps } from './deps.ts'
import { reportUnexpected } from './guard.ts'

export interface Auth { role: Role; tenant: string; tokenId: string }

export interface RouteSpec<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: 'get' | 'post' | 'delete'
  /** Hono path under the API base, e.g. '/runs/:id'. */
  path: string
  summary: string
  role: Role
  params?: P
  query?: Q
  body?: B
  /** Server-Sent Events instead of JSON. */
  sse?: boolean
  /** Success status (default 200). */
  status?: number
  /**
   * What a success returns: documentation only (the OpenAPI document, and through it the
   * dashboard's generated types, apps/web/ui/api-types.gen.ts); the server does not parse it.
   */
  response?: z.ZodType
}

export interface HandlerContext<P, Q, B> {
  c: Context
  auth: Auth
  params: P
  query: Q
  body: B
  deps: AppDeps
}

export interface Route {
  spec: RouteSpec
  handler: (ctx: HandlerContext<any, any, any>) => Promise<Response | unknown>
}

export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  spec: RouteSpec<P, Q, B>,
  handler: (ctx: HandlerContext<z.output<P>, z.output<Q>, z.output<B>>) => Promise<Response | unknown>,
): Route {
  return { spec: spec as RouteSpec, handler: handler as Route['handler'] }
}

/**
 * Refuses control characters in the named string fields of a schema from another package (a run
 * request's model and hardware names, which lists show). Outer whitespace is let through there:
 * model names come from GGUF metadata the client did not write.
 */
export function withPlainNames<S extends z.ZodType>(schema: S, paths: readonly (readonly string[])[]): S {
  return schema.superRefine((value, ctx) => {
    for (const path of paths) {
      const v = path.reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), value)
      const bad = typeof v === 'string' ? controlCharacterIn(v) : undefined
      if (bad) ctx.addIssue({ code: 'custom', message: bad, path: [...path] })
    }
  }) as S
}

/** A path id: what the store generates, and nothing that could be mistaken for a path. */
export const Id = z.string().min(1).max(100).regex(/^[A-Za-z0-9_-]+$/, 'ids are letters, digits, _ and -')
export const IdParams = z.object({ id: Id }).strict()
export const NoQuery = z.object({}).strict()
export const NoBody = z.union([z.object({}).strict(), z.undefined()])

// superadmin (the bootstrap token) can do whatever an admin can, and is the only role that
// reaches past its own tenant (routes that name a tenant check that with requireTenant).
const ALLOWED: Record<Role, readonly Role[]> = {
  viewer: ['viewer', 'operator', 'approver', 'admin', 'superadmin'],
  operator: ['operator', 'admin', 'superadmin'],
  approver: ['approver', 'admin', 'superadmin'],
  admin: ['admin', 'superadmin'],
  superadmin: ['superadmin'],
}
export const roleAllows = (have: Role, need: Role) => ALLOWED[need].includes(have)

/** A tenant named in a request: the caller's own, or any one for the superadmin; otherwise 403. */
export function requireTenant(auth: Auth, tenant: string, what: string): string {
  if (tenant !== auth.tenant && auth.role !== 'superadmin') {
    throw new KerneltuneError('FORBIDDEN', `${what} for tenant ${tenant} is refused: this ${auth.role} token belongs to tenant ${auth.tenant} and may act on it only; other tenants need the superadmin token (KERNELTUNE_ADMIN_TOKEN)`)
  }
  return tenant
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  INVALID_INPUT: 400, PLUGIN_NOT_FOUND: 400, UNAUTHORIZED: 401, FORBIDDEN: 403, NOT_FOUND: 404, CONFLICT: 409, PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_COMBINATION: 422, UNSUPPORTED: 422, BUDGET_EXHAUSTED: 409, CANCELLED: 409, FEATURE_DISABLED: 503, DEVICE_UNAVAILABLE: 503,
}

export function errorResponse(c: Context, err: unknown): Response {
  const status = isKerneltuneError(err) ? STATUS[err.code] ?? 500 : 500
  // A 500 is a server bug or a broken dependency: it is logged with the request id the client
  // gets back, so the two can be matched. Expected refusals (4xx) are the client's to read.
  const requestId = status === 500 ? reportUnexpected(c, err) : undefined
  if (isKerneltuneError(err)) {
    const problems = (err.details as { errors?: string[] } | undefined)?.errors
    return c.json({ error: { code: err.code, message: err.message, ...(problems ? { problems } : {}), ...(requestId ? { requestId } : {}) } }, status as 400)
  }
  return c.json({ error: { code: 'INTERNAL', message: `internal error; the server logged it as request ${requestId}`, requestId } }, 500)
}

const invalid = (where: string, problems: string[]) =>
  new KerneltuneError('INVALID_INPUT', `invalid ${where}: ${problems.join('; ')}`, { details: { errors: problems.map((p) => `${where}.${p}`) } })

function check<S extends z.ZodType>(schema: S | undefined, value: unknown, where: string): unknown {
  if (!schema) return value
  const r = schema.safeParse(value)
  if (!r.success) throw invalid(where, formatIssues(r.error.issues))
  return r.data
}

/** The largest request body read (2 MiB): above the largest valid body, a registry source of 1 MB. */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024

/**
 * The deepest nesting of objects/arrays a request body may have. The deepest valid body (a run
 * request's restrict lists, a registry entry's metadata at its own limit of 16) is well under it;
 * checked on the text, before JSON.parse or any recursive step sees the value.
 */
export const MAX_BODY_DEPTH = 64

const tooLarge = (size: string, max: number) =>
  new KerneltuneError('PAYLOAD_TOO_LARGE', `the request body is ${size} bytes, over this server's limit of ${max} bytes; send a smaller body (a registry source is at most 1,000,000 characters)`)

/**
 * Reads at most maxBytes of the body, refusing a larger declared Content-Length before reading
 * anything and stopping a longer (chunked or lying) stream as soon as it passes the limit.
 */
async function readBody(c: Context, maxBytes: number): Promise<unknown> {
  const declared = Number(c.req.header('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(String(declared), maxBytes)
  const stream = c.req.raw.body
  if (!stream) return undefined
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge(`over ${total}`, maxBytes)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(total)
  let at = 0
  for (const ch of chunks) (bytes.set(ch, at), at += ch.byteLength)
  const text = new TextDecoder().decode(bytes)
  if (text.trim() === '') return undefined
  const depth = jsonTextDepth(text, MAX_BODY_DEPTH)
  if (depth > MAX_BODY_DEPTH) throw invalid('body', [`(root): nested more than ${MAX_BODY_DEPTH} levels deep (objects and arrays); no valid request is`])
  try {
    return JSON.parse(text)
  } catch {
    throw invalid('body', ['(root): not valid JSON'])
  }
}

export function mount(app: Hono, base: string, routes: readonly Route[], deps: AppDeps, authenticate: (c: Context) => Promise<Auth>, options: { maxBodyBytes?: number } = {}): void {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  for (const { spec, handler } of routes) {
    app.on(spec.method.toUpperCase(), base + spec.path, async (c) => {
      try {
        const auth = await authenticate(c)
        if (!roleAllows(auth.role, spec.role)) {
          throw new KerneltuneError('FORBIDDEN', `${spec.method.toUpperCase()} ${spec.path} needs the ${spec.role} role; this token has ${auth.role}`)
        }
        const params = check(spec.params ?? NoQuery, c.req.param(), 'path')
        const query = check(spec.query ?? NoQuery, c.req.query(), 'query')
        const body = spec.method === 'get' ? undefined : check(spec.body ?? NoBody, await readBody(c, maxBodyBytes), 'body')
        const out = await handler({ c, auth, params, query, body, deps })
        return out instanceof Response ? out : c.json(out as object, (spec.status ?? 200) as 200)
      } catch (err) {
        return errorResponse(c, err)
      }
    })
  }
}
