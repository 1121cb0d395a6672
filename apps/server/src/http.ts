/**
 * Route declarations shared by the router, the role checks and the OpenAPI document: each route
 * names its method, path, required role and the zod schemas of its path parameters, query and
 * body. `mount` validates all three before the handler runs (a bad one is a 400 listing every
 * problem) and maps kerneltune errors to HTTP statuses.
 */
import { controlCharacterIn, hiddenTextIn, isKerneltuneError, jsonTextDepth, KerneltuneError, type ErrorCode, type Role } from '@kerneltune/core'
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
  REQUEST_TIMEOUT: 408,
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

// A 400 quotes what the client sent only in bounded pieces: a 1 MB unknown key once came back
// twice (message and problems) in a 2 MB answer. Keys are cut to MAX_KEY_SHOWN characters, at most
// MAX_KEYS_LISTED unknown keys and MAX_PROBLEMS problems are listed (the rest counted), and each
// problem is cut at MAX_PROBLEM_CHARS, a last bound on any message (ours or a schema's) that quotes input.
const MAX_KEY_SHOWN = 64
const MAX_KEYS_LISTED = 10
const MAX_PROBLEMS = 20
const MAX_PROBLEM_CHARS = 1000

const cut = (s: string, max: number) => {
  if (s.length <= max) return s
  // Not between the halves of a surrogate pair.
  const head = s.slice(0, max)
  return `${/[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head}…`
}

/** A client's key as a message may quote it: at most MAX_KEY_SHOWN characters, control characters escaped. */
export function shownKey(key: PropertyKey): string {
  return cut(String(key), MAX_KEY_SHOWN).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`)
}

const shownPath = (path: readonly PropertyKey[]) => (path.length === 0 ? '(root)' : path.map(shownKey).join('.'))

/** zod's issues as `path: message`, like core's formatIssues, with every key bounded (shownKey). */
function formatBounded(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    let message = issue.message
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys
      const more = keys.length > MAX_KEYS_LISTED ? ` and ${keys.length - MAX_KEYS_LISTED} more` : ''
      message = `Unrecognized key${keys.length === 1 ? '' : 's'}: ${keys.slice(0, MAX_KEYS_LISTED).map((k) => `"${shownKey(k)}"`).join(', ')}${more}`
    }
    return `${shownPath(issue.path)}: ${message}`
  })
}

/**
 * Every string and key of a request body that could hide text from whoever reads it later
 * (core's hiddenTextIn: NUL and the other controls, a lone CR, bidi overrides), as problems. It
 * runs over every body, so a stored string is checked whichever route, schema or package
 * (the tuner's run request, a registry entry's metadata) declared it.
 */
function hiddenTextProblems(value: unknown, path: PropertyKey[] = [], out: { path: string; problem: string }[] = []): { path: string; problem: string }[] {
  if (out.length >= MAX_PROBLEMS) return out
  if (typeof value === 'string') {
    const bad = hiddenTextIn(value)
    if (bad) out.push({ path: shownPath(path), problem: bad })
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => hiddenTextProblems(v, [...path, i], out))
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const bad = hiddenTextIn(k)
      if (bad) out.push({ path: shownPath([...path, k]), problem: `its key ${bad}` })
      hiddenTextProblems(v, [...path, k], out)
    }
  }
  return out
}

const invalid = (where: string, problems: string[]) => {
  const listed = problems.slice(0, MAX_PROBLEMS).map((p) => cut(p, MAX_PROBLEM_CHARS))
  const more = problems.length > MAX_PROBLEMS ? `; and ${problems.length - MAX_PROBLEMS} more problems` : ''
  return new KerneltuneError('INVALID_INPUT', `invalid ${where}: ${listed.join('; ')}${more}`, { details: { errors: listed.map((p) => `${where}.${p}`) } })
}

function check<S extends z.ZodType>(schema: S | undefined, value: unknown, where: string, options: { text?: boolean } = {}): unknown {
  const r = schema ? schema.safeParse(value) : undefined
  const problems = r && !r.success ? formatBounded(r.error.issues) : []
  if (options.text) {
    const hidden = hiddenTextProblems(value)
    // A field the schema already refused (a name with a control character) is reported once.
    for (const h of hidden) if (!problems.some((p) => p.startsWith(`${h.path}: `))) problems.push(`${h.path}: ${h.problem}`)
  }
  if (problems.length > 0) throw invalid(where, problems)
  return r ? r.data : value
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
 * The body stream failed before its end: the connection closed mid-body. On Node that is the
 * request timeout (Node has already answered 408 on the socket and destroyed it with
 * ERR_HTTP_REQUEST_TIMEOUT) or the client leaving. No one reads this answer, but the request
 * metrics count its status: a timeout is a 408 and a client that left a 400, not a server error.
 */
function bodyCutOff(c: Context): KerneltuneError {
  // Duck-typed, not imported: @hono/node-server passes { incoming, outgoing } as the bindings, and
  // this module runs on Bun and Deno too, where the property is absent.
  const socket = (c.env as { incoming?: { socket?: { errored?: { code?: unknown } | null } } } | undefined)?.incoming?.socket
  if (socket?.errored?.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new KerneltuneError('REQUEST_TIMEOUT', 'the request body did not arrive within the server\'s request timeout (serve --request-timeout); send it faster or ask the operator for a longer timeout')
  }
  return new KerneltuneError('INVALID_INPUT', 'the request body ended before it was complete: the connection closed while it was being read; send the whole body', { details: { errors: ['body: cut off before its end'] } })
}

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
    const { value, done } = await reader.read().catch(() => {
      throw bodyCutOff(c)
    })
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
        const body = spec.method === 'get' ? undefined : check(spec.body ?? NoBody, await readBody(c, maxBodyBytes), 'body', { text: true })
        const out = await handler({ c, auth, params, query, body, deps })
        return out instanceof Response ? out : c.json(out as object, (spec.status ?? 200) as 200)
      } catch (err) {
        return errorResponse(c, err)
      }
    })
  }
}
