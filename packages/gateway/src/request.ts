/**
 * What the gateway forwards (issue 34 items 19, 20, 23): every completion request is checked here
 * before any arm sees it, so a request that is the client's error gets a 4xx from the gateway and
 * is never forwarded, retried or charged to an arm.
 *
 * - Size and depth are bounded before parsing: a 2 MB prompt of a million nested arrays crashed
 *   the C++ reference server (ggml-org's tools/server), and the retry crashed the next arm too.
 * - The body must be UTF-8 (that server answered an invalid byte with a 500, which the gateway
 *   then counted against the arm).
 * - The token limits must be finite integers: `max_tokens: 1e999` reached that server as a
 *   number it could not read (a 500 again).
 * - The generation is capped: that server reads the limit from the first non-null of
 *   `n_predict`, `max_completion_tokens`, `max_tokens` (ggml-org's tools/server at de3ff815:
 *   tools/server/server-schema.cpp L44–47, `add_alias` in that
 *   order; null counts as absent, L585–588), and -1 or no limit means "until the context is full"
 *   (tools/server/server-context.cpp L1818), which ran for over 120 s in one probe. A -1,
 *   null or missing limit becomes the cap; a limit above the cap is refused.
 */
import { formatIssues, jsonTextDepth } from '@kerneltune/core'
import { z } from 'zod'

export interface RequestLimits {
  /** Largest request body, in bytes. */
  readonly maxBodyBytes: number
  /** Deepest nesting of objects and arrays in the body (the body itself is level 1). */
  readonly maxDepth: number
  /** Most tokens one request may generate; what a request without a limit (or -1) gets. */
  readonly maxTokens: number
}

/**
 * 8 MiB holds a chat request with a base64 image or a prompt of a few hundred thousand tokens;
 * depth 64 is the server's (apps/server http.ts MAX_BODY_DEPTH) and far above a chat request with
 * a nested JSON schema; 4096 tokens is what the C++ reference server itself fills in for an Anthropic-style
 * request without max_tokens (tools/server/server-chat.cpp L586–590).
 */
export const DEFAULT_LIMITS: RequestLimits = { maxBodyBytes: 8 << 20, maxDepth: 64, maxTokens: 4096 }

/** The token-limit fields, in the order the C++ reference server reads them (the others read `max_tokens`). */
export const TOKEN_LIMIT_FIELDS = ['n_predict', 'max_completion_tokens', 'max_tokens'] as const

const tokenLimit = (cap: number) => z.number().int().min(-1).max(cap, { message: `is over this gateway's cap of ${cap} tokens (kerneltune gateway --max-tokens-cap)` }).nullable().optional()

const schemaFor = (path: string, cap: number) => {
  const limits = { n_predict: tokenLimit(cap), max_completion_tokens: tokenLimit(cap), max_tokens: tokenLimit(cap), stream: z.boolean().nullable().optional() }
  // The prompt's or messages' inner shape is the arm's to read; its depth and size are bounded above.
  return path === '/v1/chat/completions'
    ? z.looseObject({ ...limits, messages: z.array(z.looseObject({ role: z.string() })).min(1) })
    : z.looseObject({ ...limits, prompt: z.union([z.string(), z.array(z.unknown()).min(1)]) })
}

export type CheckedRequest =
  | { readonly ok: true; readonly body: Uint8Array; readonly streamed: boolean; readonly maxTokens: number; readonly rewritten: boolean }
  | { readonly ok: false; readonly status: 400 | 413; readonly message: string }

const bad = (message: string): CheckedRequest => ({ ok: false, status: 400, message })

/** Checks one completion request body; on success gives the bytes to forward (rewritten only when the cap had to be written in). */
export function checkRequest(bytes: Uint8Array, path: string, limits: RequestLimits = DEFAULT_LIMITS): CheckedRequest {
  if (bytes.byteLength > limits.maxBodyBytes) return { ok: false, status: 413, message: `the request body is ${bytes.byteLength} bytes, over this gateway's limit of ${limits.maxBodyBytes} (kerneltune gateway --max-body-mb)` }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return bad('the request body is not valid UTF-8')
  }
  if (jsonTextDepth(text, limits.maxDepth) > limits.maxDepth) return bad(`the request body is nested more than ${limits.maxDepth} levels deep (objects and arrays); no completion request is`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return bad('the request body is not valid JSON')
  }
  const r = schemaFor(path, limits.maxTokens).safeParse(value)
  if (!r.success) return bad(`invalid request body: ${formatIssues(r.error.issues).join('; ')}`)
  const body = value as Record<string, unknown>
  const first = TOKEN_LIMIT_FIELDS.map((f) => body[f]).find((v) => v !== undefined && v !== null) as number | undefined
  const streamed = body.stream === true
  if (first !== undefined && first !== -1) return { ok: true, body: bytes, streamed, maxTokens: first, rewritten: false }
  // No limit, or -1: write the cap in (and over every -1, so no field the arm reads first says "unlimited").
  for (const f of TOKEN_LIMIT_FIELDS) if (body[f] === -1) body[f] = limits.maxTokens
  if (first === undefined) body.max_tokens = limits.maxTokens
  return { ok: true, body: new TextEncoder().encode(JSON.stringify(body)), streamed, maxTokens: limits.maxTokens, rewritten: true }
}

/**
 * The bytes of request bodies held at once, across requests: each request's body stays in memory
 * until its answer ends (a retry sends it again), so without a total, eight 31 MiB bodies held
 * 290 MB. A request whose body would pass the total is refused (413) while it is read.
 */
export class BodyBudget {
  private used = 0
  readonly totalBytes: number
  constructor(totalBytes: number) {
    this.totalBytes = totalBytes
  }

  /** Takes n more bytes; false (taking nothing) when that would pass the total. */
  take(n: number): boolean {
    if (this.used + n > this.totalBytes) return false
    this.used += n
    return true
  }

  release(n: number): void {
    this.used = Math.max(0, this.used - n)
  }

  get held(): number {
    return this.used
  }
}
