import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openStoreAt } from '@kerneltune/compose/node'
import type { TokenAudit, TokenCreated, TokenList } from '@kerneltune/web/api-types'
import { cli, tempDir } from './run.test-helpers.ts'
import { expiryBody } from './token.ts'

// kerneltune token create|list|revoke|audit against the embedded store (a temporary SQLite file).
const t = tempDir('kt-token-cli-')
const db = join(t.dir, 'kt.db')
afterAll(() => rmSync(t.dir, { recursive: true, force: true }))

describe('kerneltune token list|revoke|audit (issue 23 item 17)', () => {
  it('should create with --expires, list without secrets, revoke (refused by the store from then on) and show the audit log', async () => {
    const made = await cli<TokenCreated>(t.dir, ['token', 'create', '--role', 'operator', '--tenant', 'acme', '--label', 'ci', '--expires', '30d', '--db', db, '--json'])
    expect(made.code).toBe(0)
    expect(made.json).toMatchObject({ role: 'operator', tenant: 'acme', label: 'ci', status: 'active', mintedBy: 'embedded-cli' })
    expect(Date.parse(made.json.expiresAt ?? '') - Date.parse(made.json.createdAt)).toBeCloseTo(30 * 86_400_000, -4)
    const listed = await cli<TokenList>(t.dir, ['token', 'list', '--tenant', 'acme', '--db', db, '--json'])
    expect(listed.json.items.map((x) => [x.id, x.status])).toEqual([[made.json.id, 'active']])
    expect(listed.out).not.toContain(made.json.token)
    const human = await cli(t.dir, ['token', 'list', '--tenant', 'acme', '--db', db])
    expect(human.out).toMatch(/ci\s+active/)
    // The default tenant has none: tenants are kept apart.
    expect((await cli<TokenList>(t.dir, ['token', 'list', '--db', db, '--json'])).json.items).toEqual([])

    const revoked = await cli(t.dir, ['token', 'revoke', made.json.id, '--tenant', 'acme', '--reason', 'rotated', '--db', db, '--json'])
    expect([revoked.code, revoked.json.status]).toEqual([0, 'revoked'])
    const store = await openStoreAt(db)
    expect(await store.tokens.verify(made.json.token)).toBeUndefined()
    await store.close()
    const again = await cli(t.dir, ['token', 'revoke', made.json.id, '--tenant', 'acme', '--db', db])
    expect([again.code === 0, /already revoked/.test(again.err)]).toEqual([false, true])
    const unknown = await cli(t.dir, ['token', 'revoke', made.json.id, '--db', db])
    expect([unknown.code === 0, /no token .* in tenant default/.test(unknown.err)]).toEqual([false, true])

    const audit = await cli<TokenAudit>(t.dir, ['token', 'audit', made.json.id, '--tenant', 'acme', '--db', db, '--json'])
    expect(audit.json.items.map((e) => [e.action, e.actor])).toEqual([['create', 'embedded-cli'], ['revoke', 'embedded-cli']])
  })

  it('should refuse a malformed --expires with a usage error (exit 2)', async () => {
    const bad = await cli(t.dir, ['token', 'create', '--expires', 'next week', '--db', db])
    expect([bad.code, /--expires expects a duration/.test(bad.err)]).toEqual([2, true])
    expect(expiryBody('12h')).toEqual({ expiresIn: '12h' })
    expect(expiryBody('2027-01-01')).toEqual({ expiresAt: '2027-01-01T00:00:00.000Z' })
  })
})
