/**
 * API token endpoints: mint, list, revoke, and the token audit log. An admin sees and administers
 * its own tenant's tokens only (another tenant's token id reads as unknown); the superadmin names a
 * tenant or all of them. Every mint and revocation is logged with who did it.
 */
import { KerneltuneError, nameSchema, RoleSchema, TenantNameSchema, textSchema } from '@kerneltune/core'
import type { TokenInfo } from '@kerneltune/store'
import { z } from 'zod'
import { Id, IdParams, requireTenant, route, type Auth, type Route } from '../http.ts'
import { TokenAuditResponse, TokenCreatedResponse, TokenListResponse, TokenResponse } from '../responses.ts'

// One tenant schema (normalised, no '.'/'..') and one name schema (no control characters) for every route.
const TenantName = TenantNameSchema

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const
/** The longest lifetime a token may be given (ten years); longer is a typo more often than a wish. */
const MAX_LIFETIME_MS = 3650 * 86_400_000

/** A duration such as 90m, 12h, 30d or 2w. */
export const Duration = z.string().regex(/^[1-9][0-9]{0,6}[smhdw]$/, 'a duration is a number and a unit: s, m, h, d or w (e.g. 30d)')
  .transform((v) => Number(v.slice(0, -1)) * UNIT_MS[v.slice(-1) as keyof typeof UNIT_MS])

const CreateBody = z.object({
  role: RoleSchema,
  tenant: TenantName.optional(),
  label: nameSchema(200).optional(),
  /** The token id of the person this token is for (four-eyes approval treats it as that person). */
  actsFor: Id.optional(),
  expiresIn: Duration.optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
}).strict().refine((b) => !(b.expiresIn !== undefined && b.expiresAt !== undefined), { message: 'give expiresIn or expiresAt, not both', path: ['expiresAt'] })

const ListQuery = z.object({ tenant: TenantName.optional(), allTenants: z.literal('true').optional() }).strict()
const AuditQuery = z.object({ tenant: TenantName.optional(), allTenants: z.literal('true').optional(), tokenId: Id.optional() }).strict()
const RevokeBody = z.union([z.object({ reason: textSchema(2000).min(1).optional() }).strict(), z.undefined()])

/** The tenant a list names: the caller's own, another (superadmin), or null for every tenant (superadmin). */
function listTenant(auth: Auth, query: { tenant?: string | undefined; allTenants?: 'true' | undefined }): string | null {
  if (query.allTenants) {
    if (auth.role !== 'superadmin') throw new KerneltuneError('FORBIDDEN', `listing every tenant's tokens needs the superadmin token (KERNELTUNE_ADMIN_TOKEN); this ${auth.role} token sees its own tenant's (${auth.tenant}): leave out allTenants`)
    return null
  }
  return requireTenant(auth, query.tenant ?? auth.tenant, 'listing tokens')
}

const status = (t: TokenInfo, at: number) => (t.revokedAt ? 'revoked' : t.expiresAt && Date.parse(t.expiresAt) <= at ? 'expired' : 'active')

/** What a listing shows of a token at `at` (the store's clock): everything the store keeps but its hash (the secret is never stored). */
const shown = (t: TokenInfo, at: number) => ({
  id: t.id, label: t.label, role: t.role, tenant: t.tenant, status: status(t, at), createdAt: t.createdAt, expiresAt: t.expiresAt,
  revokedAt: t.revokedAt, lastUsedAt: t.lastUsedAt, mintedBy: t.mintedBy, actsFor: t.actsFor,
})

export const tokenRoutes: Route[] = [
  route({ method: 'post', path: '/tokens', summary: 'Mint an API token for the caller\'s tenant (admin), or for any tenant, creating it (superadmin); optional expiry (expiresIn: 30d, or expiresAt) and actsFor (the token id of the person it is for); the token is shown once', role: 'admin', body: CreateBody, status: 201, response: TokenCreatedResponse }, async ({ auth, body, deps }) => {
    const tenant = requireTenant(auth, body.tenant ?? auth.tenant, 'minting a token')
    if (body.role === 'superadmin' && auth.role !== 'superadmin') throw new KerneltuneError('FORBIDDEN', 'only the superadmin token (KERNELTUNE_ADMIN_TOKEN) may mint superadmin tokens; mint an admin token for a tenant instead')
    let expiresAt: string | null = null
    // The store's clock: expiry is judged by it (tokens.verify), so it is counted from it.
    const now = deps.store.clock()
    if (body.expiresIn !== undefined || body.expiresAt !== undefined) {
      const at = body.expiresIn !== undefined ? now + body.expiresIn : Date.parse(body.expiresAt!)
      if (at <= now) throw new KerneltuneError('INVALID_INPUT', `invalid body: expiresAt ${body.expiresAt} is not in the future`, { details: { errors: ['body.expiresAt: must be in the future'] } })
      if (at - now > MAX_LIFETIME_MS) throw new KerneltuneError('INVALID_INPUT', 'invalid body: a token may live at most 3650 days; leave the expiry out for a token that never expires', { details: { errors: [`body.${body.expiresIn !== undefined ? 'expiresIn' : 'expiresAt'}: at most 3650 days from now`] } })
      expiresAt = new Date(at).toISOString()
    }
    const { token, info } = await deps.store.tokens.create(body.role, tenant, body.label ?? null, undefined, { mintedBy: auth.tokenId, actsFor: body.actsFor ?? null, expiresAt })
    return { token, ...shown(info, now) }
  }),
  route({ method: 'get', path: '/tokens', summary: 'List API tokens of the caller\'s tenant (admin), or of another tenant or all (superadmin): role, label, status, expiry, last use, who minted each; never the secret', role: 'admin', query: ListQuery, response: TokenListResponse }, async ({ auth, query, deps }) =>
    ({ items: (await deps.store.tokens.list(listTenant(auth, query))).map((t) => shown(t, deps.store.clock())) })),
  route({ method: 'get', path: '/tokens/audit', summary: 'The token audit log (mints and revocations: who, when), of the caller\'s tenant, or another or all (superadmin); tokenId narrows it to one token', role: 'admin', query: AuditQuery, response: TokenAuditResponse }, async ({ auth, query, deps }) =>
    ({ items: await deps.store.tokens.events(listTenant(auth, query), query.tokenId) })),
  route({ method: 'delete', path: '/tokens/:id', summary: 'Revoke an API token of the caller\'s tenant (admin), or of the tenant named by ?tenant= (superadmin; a superadmin token needs the superadmin); it is refused (401) from then on', role: 'admin', params: IdParams, query: z.object({ tenant: TenantName.optional() }).strict(), body: RevokeBody, response: TokenResponse }, async ({ auth, params, query, body, deps }) => {
    const tenant = requireTenant(auth, query.tenant ?? auth.tenant, 'revoking a token')
    const t = await deps.store.tokens.get(params.id)
    // Another tenant's token reads as unknown, so an id says nothing about other tenants.
    if (!t || t.tenant !== tenant) throw new KerneltuneError('NOT_FOUND', `no token ${params.id} in tenant ${tenant}; list them with GET /tokens${auth.role === 'superadmin' ? ' (another tenant\'s: DELETE /tokens/{id}?tenant=NAME)' : ''}`)
    if (t.role === 'superadmin' && auth.role !== 'superadmin') throw new KerneltuneError('FORBIDDEN', `token ${t.id} is a superadmin token; only the superadmin token may revoke it`)
    if (t.revokedAt) throw new KerneltuneError('CONFLICT', `token ${t.id} was already revoked at ${t.revokedAt}`)
    if (!(await deps.store.tokens.revoke(t.id, auth.tokenId, body?.reason ?? null))) throw new KerneltuneError('CONFLICT', `token ${t.id} was revoked meanwhile`)
    return shown((await deps.store.tokens.get(t.id))!, deps.store.clock())
  }),
]
