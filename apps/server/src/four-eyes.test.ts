/**
 * Four-eyes approval over HTTP when a token acts for another (issue 34 item 25): the approver's
 * links are followed through the token its actsFor names, up that token's minting chain.
 */
import { describe, it, expect } from 'vitest'
import { API_BASE } from './app.ts'
import { testApp } from './test-helpers.ts'

type T = Awaited<ReturnType<typeof testApp>>

const json = async (res: Response) => (await res.json()) as any

async function mint(t: T, by: string, body: Record<string, unknown>): Promise<{ token: string; id: string }> {
  const res = await t.call('POST', `${API_BASE}/tokens`, { token: by, body })
  expect(res.status, JSON.stringify(body)).toBe(201)
  return json(res)
}

describe('four-eyes approval through actsFor', () => {
  it('should refuse the issue\'s laundering: adminA mints viewer V, adminA2 mints an approver acting for V, which approves adminA\'s entry', async () => {
    const t = await testApp()
    const adminA = await mint(t, t.tokens.superadmin, { role: 'admin', tenant: 'acme', label: 'adminA' })
    const adminA2 = await mint(t, t.tokens.superadmin, { role: 'admin', tenant: 'acme', label: 'adminA2' })
    const viewerV = await mint(t, adminA.token, { role: 'viewer', label: 'V' })
    const approver = await mint(t, adminA2.token, { role: 'approver', actsFor: viewerV.id })
    const entry = await json(await t.call('POST', `${API_BASE}/registry`, { token: adminA.token, body: { name: 'k', kernelFamily: 'gemv', provider: 'human', source: 'fn main() {}' } }))
    const res = await t.call('POST', `${API_BASE}/registry/${entry.id}/approve`, { token: approver.token, body: { reason: 'looks fine' } })
    const err = (await json(res)).error
    expect([res.status, err.code]).toEqual([403, 'FORBIDDEN'])
    expect(err.message).toContain(`acts for ${viewerV.id}, which was minted by ${adminA.id}, which counts as the submitter`)
    const listed = await json(await t.call('GET', `${API_BASE}/registry`, { token: t.tokens.viewer }))
    expect(listed.items.find((e: any) => e.id === entry.id).status).toBe('proposed')
    expect((await json(await t.call('GET', `${API_BASE}/registry/${entry.id}/audit`, { token: t.tokens.viewer }))).items.map((e: any) => e.action)).toEqual(['submit'])
  })

  it('should still let an approver minted by another admin approve, with or without actsFor a token the submitter did not mint', async () => {
    const t = await testApp()
    const adminA = await mint(t, t.tokens.superadmin, { role: 'admin', tenant: 'acme', label: 'adminA' })
    const adminA2 = await mint(t, t.tokens.superadmin, { role: 'admin', tenant: 'acme', label: 'adminA2' })
    const submit = async (name: string) => json(await t.call('POST', `${API_BASE}/registry`, { token: adminA.token, body: { name, kernelFamily: 'gemv', provider: 'human', source: 'fn main() {}' } }))
    const approve = (id: string, token: string) => t.call('POST', `${API_BASE}/registry/${id}/approve`, { token, body: { reason: 'reviewed' } })
    const plain = await mint(t, adminA2.token, { role: 'approver' })
    const viewerW = await mint(t, adminA2.token, { role: 'viewer', label: 'W' })
    const forW = await mint(t, adminA2.token, { role: 'approver', actsFor: viewerW.id })
    for (const [name, approver] of [['one', plain], ['two', forW]] as const) {
      const entry = await submit(name)
      const res = await approve(entry.id, approver.token)
      expect([res.status, (await json(res)).status], name).toEqual([200, 'approved'])
    }
  })
})
