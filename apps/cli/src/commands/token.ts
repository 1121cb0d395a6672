/**
 * kerneltune token create|list|revoke|audit: API tokens. An admin token administers its own
 * tenant's tokens; only the superadmin token (KERNELTUNE_ADMIN_TOKEN) names another tenant
 * (creating it) or mints superadmin tokens. The secret is printed once, at create; list never
 * shows it. Every create and revoke is in the token audit log.
 */
import { defineCommand } from '../cli/command.ts'
import { onePositional, usageError } from '../cli/args.ts'
import { keyValues, table } from '../cli/output.ts'
import { TARGET_FLAGS, withKernelsClient as withClient } from '../store-location.ts'

/** --expires: a duration the server reads (30d, 12h, 90m, 2w) or an instant (2027-01-01, or ISO-8601 with a zone). */
export function expiryBody(raw: string | undefined): { expiresIn?: string; expiresAt?: string } {
  if (raw === undefined) return {}
  if (/^[1-9][0-9]{0,6}[smhdw]$/.test(raw)) return { expiresIn: raw }
  if (/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(raw) && !Number.isNaN(Date.parse(raw))) return { expiresAt: new Date(raw).toISOString() }
  throw usageError(`--expires expects a duration (30d, 12h, 90m, 2w) or a date (2027-01-01, or 2027-01-01T00:00:00Z), got "${raw}"`)
}

const TENANT = { name: 'tenant', type: 'string', description: 'Tenant (default: the calling token\'s own; another one needs the superadmin token)' } as const

const oneId = (p: readonly string[]) => onePositional(p, 'give exactly one TOKEN_ID (see kerneltune token list)')

const tenantQuery = (tenant: unknown) => ({ tenant: typeof tenant === 'string' ? tenant : undefined })

export const tokenCommand = defineCommand({
  name: 'token',
  summary: 'API tokens for the server: create, list, revoke, audit',
  subcommands: [
    defineCommand({
      name: 'create', summary: 'Mint a token with a role and a tenant (the token is printed once)',
      flags: [...TARGET_FLAGS, { name: 'role', type: 'string', choices: ['viewer', 'operator', 'approver', 'admin', 'superadmin'], description: 'Role', default: 'viewer' }, TENANT, { name: 'label', type: 'string', description: 'Label' },
        { name: 'expires', type: 'string', description: 'Expire after a duration (30d, 12h, 90m, 2w) or at a date (2027-01-01); default never', valueName: 'WHEN' },
        { name: 'acts-for', type: 'string', description: 'Token id of the person this token is for (four-eyes approval counts it as that person)', valueName: 'TOKEN_ID' }] as const,
      jsonOutput: '{ token, id, role, tenant, label, status, createdAt, expiresAt, mintedBy, actsFor }',
      examples: ['kerneltune token create --role operator --expires 30d', 'kerneltune token create --role admin --tenant acme --token $KERNELTUNE_ADMIN_TOKEN'],
      async run(ctx) {
        const f = ctx.flags
        const body = { role: f.role ?? 'viewer', ...(f.tenant ? { tenant: f.tenant } : {}), ...(f.label ? { label: f.label } : {}), ...(f.actsFor ? { actsFor: f.actsFor } : {}), ...expiryBody(f.expires) }
        await withClient(f, ctx.io.env, async (c) => {
          const t = await c.call('POST /tokens', { body })
          if (ctx.json) ctx.printJson(t)
          else ctx.io.stdout(keyValues([['token', t.token], ['id', t.id], ['role', t.role], ['tenant', t.tenant], ['expires', t.expiresAt ?? 'never']]))
        })
      },
    }),
    defineCommand({
      name: 'list', summary: 'List a tenant\'s tokens (never their secrets): role, status, expiry, last use, who minted each',
      flags: [...TARGET_FLAGS, TENANT, { name: 'all-tenants', type: 'boolean', description: 'Every tenant\'s tokens (superadmin)', default: false }] as const,
      jsonOutput: '{ items: [{ id, label, role, tenant, status, createdAt, expiresAt, revokedAt, lastUsedAt, mintedBy, actsFor }] }',
      examples: ['kerneltune token list', 'kerneltune token list --all-tenants --server http://127.0.0.1:8080 --token $KERNELTUNE_ADMIN_TOKEN --json'],
      async run(ctx) {
        const f = ctx.flags
        await withClient(f, ctx.io.env, async (c) => {
          const r = await c.call('GET /tokens', { query: f.allTenants ? { allTenants: 'true' } : tenantQuery(f.tenant) })
          if (ctx.json) return ctx.printJson(r)
          ctx.io.stdout(table(r.items.map((x) => [x.id, x.role, x.tenant, x.label ?? '', x.status, x.expiresAt ?? 'never', x.lastUsedAt ?? '', x.mintedBy ?? 'unknown']), ['id', 'role', 'tenant', 'label', 'status', 'expires', 'last used', 'minted by']))
        })
      },
    }),
    defineCommand({
      name: 'revoke', summary: 'Revoke a token: the server refuses it (401) from then on', positionals: ['TOKEN_ID'],
      flags: [...TARGET_FLAGS, TENANT, { name: 'reason', type: 'string', description: 'Why (kept in the audit log)' }] as const,
      jsonOutput: '{ id, role, tenant, status: "revoked", revokedAt, ... }',
      examples: ['kerneltune token revoke 3f2c... --reason "left the team"'],
      async run(ctx) {
        const id = oneId(ctx.positionals)
        await withClient(ctx.flags, ctx.io.env, async (c) => {
          const r = await c.call('DELETE /tokens/{id}', { params: { id }, query: tenantQuery(ctx.flags.tenant), body: ctx.flags.reason ? { reason: ctx.flags.reason } : undefined })
          if (ctx.json) ctx.printJson(r)
          else ctx.io.stdout(keyValues([['revoked', r.id], ['role', r.role], ['tenant', r.tenant], ['at', r.revokedAt]]))
        })
      },
    }),
    defineCommand({
      name: 'audit', summary: 'The token audit log: who minted and revoked which token, when', positionals: ['[TOKEN_ID]'],
      flags: [...TARGET_FLAGS, TENANT] as const,
      jsonOutput: '{ items: [{ tokenId, tenant, action, actor, detail, createdAt }] }',
      examples: ['kerneltune token audit', 'kerneltune token audit 3f2c...'],
      async run(ctx) {
        if (ctx.positionals.length > 1) throw usageError('give at most one TOKEN_ID')
        await withClient(ctx.flags, ctx.io.env, async (c) => {
          const r = await c.call('GET /tokens/audit', { query: { ...tenantQuery(ctx.flags.tenant), tokenId: ctx.positionals[0] } })
          if (ctx.json) return ctx.printJson(r)
          ctx.io.stdout(table(r.items.map((e) => [e.createdAt, e.action, e.tokenId, e.actor, e.detail ? JSON.stringify(e.detail) : '']), ['when', 'action', 'token', 'by', 'detail']))
        })
      },
    }),
  ],
})
