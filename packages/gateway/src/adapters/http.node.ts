/** HTTP helpers of the gateway: header forwarding, request bodies, JSON and OpenAI-style error answers. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { KerneltuneError } from '@kerneltune/core'

export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host'])
export const COMPLETION_PATHS = new Set(['/v1/completions', '/v1/chat/completions'])

export function forwardHeaders(h: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v
  return out
}

export function readBody(req: IncomingMessage, limit = 32 << 20): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    let n = 0
    req.on('data', (c: Buffer) => {
      n += c.length
      if (n > limit) reject(new KerneltuneError('PAYLOAD_TOO_LARGE', `request body over ${limit} bytes`))
      else parts.push(c)
    })
    req.on('end', () => resolve(Buffer.concat(parts)))
    req.on('error', reject)
  })
}

export const json = (res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extra })
  res.end(text)
}

/** An OpenAI-style error body, so clients of the gateway parse it as they would the server's. */
export const apiError = (res: ServerResponse, status: number, message: string, type: string, extra: Record<string, string> = {}) =>
  json(res, status, { error: { message, type, code: status } }, extra)
