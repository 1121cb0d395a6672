/**
 * kerneltune token create --role R [--tenant T]: mint an API token (shown once). An admin token
 * mints for its own tenant; only the superadmin token (KERNELTUNE_ADMIN_TOKEN) names another
 * tenant (creating it) or mints superadmin tokens.
 */
import { defineCommand } from '../cli/command.ts'
import { keyValues } from '../cli/output.ts'
import { kernelsClient, TARGET_FLAGS } from '../store-location.ts'

export const tokenCommand = defineCommand({
  name: 'token',
  summary: 'API tokens for the server',
  subcommands: [defineCommand({
    name: 'create', summary: 'Mint a token with a role and a tenant (the token is printed once)',
    flags: [...TARGET_FLAGS, { name: 'role', type: 'string', choices: ['viewer', 'operator', 'approver', 'admin', 'superadmin'], description: 'Role', default: 'viewer' }, { name: 'tenant', type: 'string', description: 'Tenant (default: the calling token\'s own; another one needs the superadmin token)' }, { name: 'label', type: 'string', description: 'Label' }] as const,
    jsonOutput: '{ token, id, role, tenant, label, createdAt }', examples: ['kerneltune token create --role operator', 'kerneltune token create --role admin --tenant acme --token $KERNELTUNE_ADMIN_TOKEN'],
    async run(ctx) {
      const c = await kernelsClient(ctx.flags, ctx.io.env)
      try {
        const t = await c.call('POST', '/tokens', { role: ctx.flags.role, ...(ctx.flags.tenant ? { tenant: ctx.flags.tenant } : {}), ...(ctx.flags.label ? { label: ctx.flags.label } : {}) })
        if (ctx.json) ctx.printJson(t)
        else ctx.io.stdout(keyValues([['token', t.token], ['role', t.role], ['tenant', t.tenant]]))
      } finally {
        await c.close()
      }
    },
  })],
})
