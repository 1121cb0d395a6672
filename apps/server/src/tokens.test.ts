import { describe, expect, it } from 'vitest'
import { API_BASE } from './app.ts'
import { testApp } from './test-helpers.ts'

type T = Awaited<ReturnType<typeof testApp>>
const json = async (res: Response) => (await res.json()) as any
const mint = (t: T, token: string, body: unknown) => t.call('POST', `${API_BASE}/tokens`, { token, body })
const list = async (t: T, token: string, query = '') => json(await t.call('GET', `${API_BASE}/tokens${query}`, { token }))
/** The id of a token the test helper wrote into the store, found by its secret. */
const idOf = async (t: T, secret: string) => (await t.store.tokens.verify(secret))!.id

describe('token list, revoke and audit (issue 23 item 17)', () => {
  it('should list a tenant\'s tokens without secrets, revoke one (401 from then on) and log both, and keep tenants apart', async () => {
    const t = await testApp()
    const made = await mint(t, t.tokens.admin, { role: 'operator', label: 'ci' })
    expect(made.status).toBe(201)
    const ci = await json(made)
    const adminId = await idOf(t, t.tokens.admin)
    expect(ci).toMatchObject({ role: 'operator', tenant: 'acme', label: 'ci', status: 'active', mintedBy: adminId, expiresAt: null })
    expect((await t.call('GET', `${API_BASE}/runs`, { token: ci.token })).status).toBe(200)

    const mine = await list(t, t.tokens.admin)
    expect(mine.items.every((x: any) => x.tenant === 'acme')).toBe(true)
    expect(mine.items.find((x: any) => x.id === ci.id)).toMatchObject({ label: 'ci', mintedBy: adminId, status: 'active' })
    expect(mine.items.find((x: any) => x.id === ci.id).lastUsedAt).not.toBeNull()
    expect(JSON.stringify(mine)).not.toContain(ci.token)
    expect(JSON.stringify(mine)).not.toMatch(/hash/i)
    // globex's admin neither sees nor revokes acme's token; an operator may do neither.
    expect((await list(t, t.other)).items.some((x: any) => x.id === ci.id)).toBe(false)
    expect((await t.call('DELETE', `${API_BASE}/tokens/${ci.id}`, { token: t.other })).status).toBe(404)
    expect((await t.call('DELETE', `${API_BASE}/tokens/${ci.id}`, { token: t.tokens.operator })).status).toBe(403)
    expect((await t.call('GET', `${API_BASE}/tokens?tenant=globex`, { token: t.tokens.admin })).status).toBe(403)
    expect((await t.call('GET', `${API_BASE}/tokens?allTenants=true`, { token: t.tokens.admin })).status).toBe(403)
    expect((await list(t, t.tokens.superadmin, '?allTenants=true')).items.map((x: any) => x.tenant)).toEqual(expect.arrayContaining(['acme', 'globex']))
    // The superadmin reaches another tenant's token only by naming the tenant.
    const gx = await json(await mint(t, t.other, { role: 'viewer' }))
    expect((await t.call('DELETE', `${API_BASE}/tokens/${gx.id}`, { token: t.tokens.superadmin })).status).toBe(404)
    expect((await t.call('DELETE', `${API_BASE}/tokens/${gx.id}?tenant=globex`, { token: t.tokens.superadmin })).status).toBe(200)

    const revoked = await t.call('DELETE', `${API_BASE}/tokens/${ci.id}`, { token: t.tokens.admin, body: { reason: 'rotated' } })
    expect(revoked.status).toBe(200)
    expect(await json(revoked)).toMatchObject({ id: ci.id, status: 'revoked' })
    const refused = await t.call('GET', `${API_BASE}/runs`, { token: ci.token })
    expect([refused.status, (await json(refused)).error.code]).toEqual([401, 'UNAUTHORIZED'])
    expect((await t.call('DELETE', `${API_BASE}/tokens/${ci.id}`, { token: t.tokens.admin })).status).toBe(409)
    // An admin cannot revoke a superadmin token of its tenant (the bootstrap one lives in a tenant too).
    const rootId = await idOf(t, t.tokens.superadmin)
    expect((await t.call('DELETE', `${API_BASE}/tokens/${rootId}`, { token: t.tokens.admin })).status).toBe(403)

    const audit = await json(await t.call('GET', `${API_BASE}/tokens/audit?tokenId=${ci.id}`, { token: t.tokens.admin }))
    expect(audit.items.map((e: any) => [e.action, e.actor, e.detail])).toEqual([
      ['create', adminId, { role: 'operator', label: 'ci', expiresAt: null, actsFor: null }],
      ['revoke', adminId, { reason: 'rotated' }],
    ])
    expect((await json(await t.call('GET', `${API_BASE}/tokens/audit`, { token: t.other }))).items.some((e: any) => e.tokenId === ci.id)).toBe(false)
  })

  it('should expire a token given expiresIn, and refuse expiries in the past, both forms at once, or a bad duration', async () => {
    // The store's clock, moved by the test: minting, expiry and listing all read it, so the test
    // checks the rule at the millisecond it turns instead of sleeping past it.
    let clock = Date.parse('2029-06-01T00:00:00.000Z')
    const t = await testApp({}, { clock: () => clock })
    // A minute past the helper's own mints (stamped 1 ms apart at one instant), so this token is stamped at the request.
    const minted = (clock += 60_000)
    const short = await json(await mint(t, t.tokens.admin, { role: 'viewer', expiresIn: '1s' }))
    expect([short.status, short.createdAt, short.expiresAt]).toEqual(['active', new Date(minted).toISOString(), new Date(minted + 1000).toISOString()])
    const runs = async () => t.call('GET', `${API_BASE}/runs`, { token: short.token })
    clock = minted + 999
    expect((await runs()).status).toBe(200)
    expect((await list(t, t.tokens.admin)).items.find((x: any) => x.id === short.id).status).toBe('active')
    // Expired at its expiresAt, not a millisecond later.
    clock = minted + 1000
    const late = await runs()
    expect([late.status, (await json(late)).error.message]).toEqual([401, expect.stringMatching(/expired/)])
    expect((await list(t, t.tokens.admin)).items.find((x: any) => x.id === short.id).status).toBe('expired')
    const month = await json(await mint(t, t.tokens.admin, { role: 'viewer', expiresIn: '30d' }))
    expect(month.expiresAt).toBe(new Date(clock + 30 * 86_400_000).toISOString())
    const dated = await mint(t, t.tokens.admin, { role: 'viewer', expiresAt: '2030-01-01T00:00:00+02:00' })
    expect([dated.status, (await json(dated)).expiresAt]).toEqual([201, '2029-12-31T22:00:00.000Z'])
    for (const body of [{ role: 'viewer', expiresAt: '2020-01-01T00:00:00Z' }, { role: 'viewer', expiresIn: '1d', expiresAt: '2099-01-01T00:00:00Z' }, { role: 'viewer', expiresIn: '30 days' }, { role: 'viewer', expiresIn: '9999999w' }, { role: 'viewer', expiresAt: '2099-01-01T00:00:00Z' }]) {
      const res = await mint(t, t.tokens.admin, body)
      expect([res.status, (await json(res)).error.code], JSON.stringify(body)).toEqual([400, 'INVALID_INPUT'])
    }
  })
})

describe('four-eyes approval across minted tokens (issue 23 item 16)', () => {
  it('should refuse an admin who mints an approver token and approves its own submission, and accept a different approver', async () => {
    const t = await testApp()
    const submitted = await json(await t.call('POST', `${API_BASE}/registry`, { token: t.tokens.admin, body: { name: 'k', kernelFamily: 'gemv', provider: 'human', source: 'fn main() {}' } }))
    const approve = (token: string) => t.call('POST', `${API_BASE}/registry/${submitted.id}/approve`, { token, body: { reason: 'looks fine' } })
    // The exact bypass: mint an approver token, approve one's own submission with it.
    const own = await json(await mint(t, t.tokens.admin, { role: 'approver', label: 'me again' }))
    const refused = await approve(own.token)
    const err = (await json(refused)).error
    expect([refused.status, err.code]).toEqual([403, 'FORBIDDEN'])
    expect(err.message).toMatch(/was minted, directly or through other tokens, by .*counts as the submitter.*superadmin/)
    // Through a second admin token minted by the submitter, and through a token "for" the submitter minted by another admin.
    const second = await json(await mint(t, t.tokens.admin, { role: 'admin' }))
    const deep = await json(await mint(t, second.token, { role: 'approver' }))
    expect((await approve(deep.token)).status).toBe(403)
    const colleague = await json(await mint(t, t.tokens.superadmin, { role: 'admin', tenant: 'acme', label: 'colleague' }))
    const forSubmitter = await json(await mint(t, colleague.token, { role: 'approver', actsFor: await idOf(t, t.tokens.admin) }))
    const forErr = await approve(forSubmitter.token)
    expect([forErr.status, (await json(forErr)).error.message]).toEqual([403, expect.stringMatching(/acts for .*the submitter/)])
    expect((await approve(t.tokens.admin)).status).toBe(403)
    // A genuinely different approver: minted by someone other than the submitter, for someone else.
    const reviewer = await json(await mint(t, colleague.token, { role: 'approver', label: 'reviewer' }))
    const ok = await approve(reviewer.token)
    expect([ok.status, (await json(ok)).status]).toEqual([200, 'approved'])
    const log = await json(await t.call('GET', `${API_BASE}/registry/${submitted.id}/audit`, { token: t.tokens.viewer }))
    expect(log.items.map((e: any) => [e.action, e.actor])).toEqual([['submit', await idOf(t, t.tokens.admin)], ['approve', reviewer.id]])
  })

  it('should refuse actsFor naming a token of another tenant', async () => {
    const t = await testApp()
    const res = await mint(t, t.tokens.admin, { role: 'approver', actsFor: await idOf(t, t.other) })
    expect(res.status).toBe(404)
  })
})
