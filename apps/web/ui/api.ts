/**
 * The page's only way to the server: the public HTTP API under /api/v1/kernels, with the pasted
 * token as a bearer token. Errors carry the server's message, which says what to fix.
 */
export const API = '/api/v1/kernels'
const KEY = 'kerneltune.token'

export const token = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (t: string) => sessionStorage.setItem(KEY, t),
  clear: () => sessionStorage.removeItem(KEY),
}

/** A `#token=...` fragment moves to sessionStorage once and leaves the address bar. */
export function adoptFragmentToken(): void {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash)
  if (!m) return
  token.set(decodeURIComponent(m[1]!))
  history.replaceState(history.state, '', location.pathname + location.search)
}

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  constructor(status: number, code: string, message: string) {
    super(message)
    this.status = status
    this.code = code
  }
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${token.get() ?? ''}` }
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(API + path, { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) })
  const text = await res.text()
  const json = text ? JSON.parse(text) as unknown : null
  if (!res.ok) {
    const e = (json as { error?: { code?: string; message?: string } } | null)?.error
    throw new ApiError(res.status, e?.code ?? 'HTTP_' + res.status, e?.message ?? res.statusText)
  }
  return json as T
}

export const qs = (o: Record<string, string | number | undefined>): string => {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== '') p.set(k, String(v))
  const s = p.toString()
  return s ? '?' + s : ''
}
