import { KerneltuneError } from '@kerneltune/core'

export const now = (): string => new Date().toISOString()
export const newId = (): string => globalThis.crypto.randomUUID()
export const toJson = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v))
export function fromJson<T>(v: unknown): T {
  if (v === null || v === undefined) return null as T
  return JSON.parse(String(v)) as T
}
export const bool = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 1n

export function notFound(what: string, id: string): KerneltuneError {
  return new KerneltuneError('NOT_FOUND', `${what} ${id} not found`, { details: { what, id } })
}

/** SHA-256 hex of a string (Web Crypto: the same on Node, Bun and Deno). */
export async function sha256(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * A created_at for a row that a list reads back in created_at order: now, or 1 ms after `last`
 * (the latest created_at already there) when the clock has not moved past it. Ids are random, so
 * two rows of one millisecond would otherwise list in either order. `at`: the clock's now, in ms.
 */
export function stampAfter(last: unknown, at: number = Date.now()): string {
  const t = new Date(at).toISOString()
  return last && t <= String(last) ? new Date(Date.parse(String(last)) + 1).toISOString() : t
}
