/**
 * Calling the app in-process, as the CLI's embedded mode does: `app.fetch(request, inProcess(auth))`.
 * The caller says who it is in a Hono binding under a symbol private to this module. Requests from
 * the network cannot carry it (the Node, Bun and Deno adapters pass their own bindings, and no one
 * outside this module can name the symbol), so for them the bearer token stays the only way in.
 * Only code that already holds the store (it opened the database itself) can make such a call.
 */
import type { Auth } from './http.ts'

const AUTH = Symbol('kerneltune.in-process-auth')

export interface InProcessBindings {
  readonly [AUTH]: Auth
}

/** The bindings of an in-process call made as `auth`. */
export const inProcess = (auth: Auth): InProcessBindings => ({ [AUTH]: auth })

/** The caller of an in-process call, or undefined for any other request. */
export function inProcessAuth(bindings: unknown): Auth | undefined {
  return typeof bindings === 'object' && bindings !== null && AUTH in bindings ? (bindings as InProcessBindings)[AUTH] : undefined
}
