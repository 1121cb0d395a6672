/**
 * Hidden text (issue 34 item 24): a registry source `abc\u0000def-hidden` was stored whole but
 * shown as `abc`, and approved on bytes no reviewer saw; a reason with NUL was cut in the audit log.
 * Every stored string of a request body now refuses what hides text (NUL and the other controls
 * but tab, line feed and CRLF; a lone CR; bidi overrides), and what is accepted reads back as sent.
 */
import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { API_BASE } from './app.ts'
import { dumpStore, SMALL_RUN, testApp } from './test-helpers.ts'

const json = async (res: Response) => (await res.json()) as any
const entry = (source: string, extra: Record<string, unknown> = {}) => ({ name: 'k', kernelFamily: 'gemv', provider: 'human', source, ...extra })

describe('hidden text in stored strings', () => {
  it('should refuse the issue\'s source with a NUL, naming the field and position but echoing none of it, and store nothing', async () => {
    const t = await testApp()
    const before = await dumpStore(t.store)
    const res = await t.call('POST', `${API_BASE}/registry`, { body: entry('abc\u0000def-hidden') })
    const doc = await json(res)
    expect([res.status, doc.error.code]).toEqual([400, 'INVALID_INPUT'])
    expect(doc.error.problems).toEqual([expect.stringMatching(/^body\.source: must not contain U\+0000 \(at position 3\)/)])
    expect(JSON.stringify(doc)).not.toMatch(/hidden|def/)
    expect(await dumpStore(t.store)).toBe(before)
  })

  it.each([
    ['a bidi override (Trojan Source)', 'if (ok) { /* \u202e } \u2066 if (admin) */ run() }', /U\+202E/],
    ['a lone carriage return', 'safe();\rrm_rf();', /U\+000D/],
    ['an escape sequence', 'x\u001b[2Ky', /U\+001B/],
    ['a C1 control', 'x\u0085y', /U\+0085/],
  ])('should refuse a source with %s', async (_, source, why) => {
    const t = await testApp()
    const res = await t.call('POST', `${API_BASE}/registry`, { body: entry(source) })
    expect(res.status).toBe(400)
    expect((await json(res)).error.problems.join('\n')).toMatch(why)
  })

  it('should keep the lines, tabs and CRLF endings of real source code byte for byte', async () => {
    const t = await testApp()
    const source = '__global__ void k(float* x) {\r\n\tx[0] = 1.0f; // ünïcode 内核\r\n}\n\n#define A \\\n  1\n'
    const res = await t.call('POST', `${API_BASE}/registry`, { body: entry(source, { metadata: { note: 'two\nlines\tand a tab' } }) })
    expect(res.status).toBe(201)
    const listed = await json(await t.call('GET', `${API_BASE}/registry`, { token: t.tokens.viewer }))
    expect(listed.items[0].source).toBe(source)
    expect(listed.items[0].metadata).toEqual({ note: 'two\nlines\tand a tab' })
  })

  it('should refuse a NUL in an approval or revocation reason, leaving the entry proposed and the logs as they were', async () => {
    const t = await testApp()
    const submitted = await json(await t.call('POST', `${API_BASE}/registry`, { body: entry('fn main() {}') }))
    const approve = await t.call('POST', `${API_BASE}/registry/${submitted.id}/approve`, { token: t.tokens.approver, body: { reason: 'ok\u0000 (and a hidden note)' } })
    expect([approve.status, (await json(approve)).error.problems]).toEqual([400, [expect.stringMatching(/^body\.reason: must not contain U\+0000 \(at position 2\)/)]])
    const deprecate = await t.call('POST', `${API_BASE}/registry/${submitted.id}/deprecate`, { token: t.tokens.approver, body: { reason: 'unsafe\u2067' } })
    expect(deprecate.status).toBe(400)
    const audit = await json(await t.call('GET', `${API_BASE}/registry/${submitted.id}/audit`, { token: t.tokens.viewer }))
    expect(audit.items.map((e: any) => e.action)).toEqual(['submit'])
    const viewer = (await t.store.tokens.list('acme')).find((x) => x.role === 'viewer')!
    const revoke = await t.call('DELETE', `${API_BASE}/tokens/${viewer.id}`, { body: { reason: 'left\u0000' } })
    expect(revoke.status).toBe(400)
    expect((await t.store.tokens.get(viewer.id))!.revokedAt).toBeNull()
    // A reason with lines is free text, and reads back whole.
    const ok = await t.call('POST', `${API_BASE}/registry/${submitted.id}/approve`, { token: t.tokens.approver, body: { reason: 'read it\nall of it' } })
    expect(ok.status).toBe(200)
    expect((await json(await t.call('GET', `${API_BASE}/registry/${submitted.id}/audit`, { token: t.tokens.viewer }))).items.at(-1).reason).toBe('read it\nall of it')
  })

  it('should refuse hidden text in any stored string of any body: metadata values and keys, a run request\'s fields', async () => {
    const t = await testApp()
    const before = await dumpStore(t.store)
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/registry', entry('x', { metadata: { author: { name: 'eve\u0000mallory' } } }), /^body\.metadata\.author\.name: must not contain U\+0000/],
      ['POST', '/registry', entry('x', { metadata: { 'key\u202e': 1 } }), /^body\.metadata\.key\\u202e: its key must not contain U\+202E/],
      ['POST', '/runs', { ...SMALL_RUN, modelPath: 'models/tiny.gguf\u0000' }, /^body\.modelPath: must not contain U\+0000/],
      ['POST', '/runs', { ...SMALL_RUN, model: { ...SMALL_RUN.model, name: 'tiny\u0000' } }, /^body\.model\.name: must not contain control characters/],
    ]
    for (const [method, path, body, why] of cases) {
      const res = await t.call(method, API_BASE + path, { token: t.tokens.admin, body })
      const doc = await json(res)
      expect(res.status, path).toBe(400)
      expect(doc.error.problems, path).toEqual(expect.arrayContaining([expect.stringMatching(why)]))
      // One problem per field, even where a name rule and the text rule both apply.
      expect(new Set(doc.error.problems.map((p: string) => p.split(':')[0])).size, path).toBe(doc.error.problems.length)
    }
    await t.queue.idle()
    expect(await dumpStore(t.store)).toBe(before)
  })

  it('should refuse to approve an entry stored with hidden text before it was refused', async () => {
    const t = await testApp()
    // Written straight into the store, as a server before this check would have.
    const legacy = await t.store.registry.submit({ tenant: 'acme', name: 'k', kernelFamily: 'gemv', provider: 'human', source: 'abc\u0000def-hidden', actor: 'old-server' })
    const res = await t.call('POST', `${API_BASE}/registry/${legacy.id}/approve`, { token: t.tokens.approver })
    const err = (await json(res)).error
    expect([res.status, err.code]).toEqual([409, 'CONFLICT'])
    expect(err.message).toMatch(/its source holds U\+0000 \(NUL\) at byte 3, after which viewers show nothing/)
    expect(err.message).not.toMatch(/hidden/)
    expect((await t.store.registry.get('acme', legacy.id))!.status).toBe('proposed')
    // Deprecating it still works: that is the way out.
    expect((await t.call('POST', `${API_BASE}/registry/${legacy.id}/deprecate`, { token: t.tokens.approver })).status).toBe(200)
  })

  it('should read back every accepted source exactly as sent, and store nothing for a refused one', async () => {
    const t = await testApp()
    // Strings over every UTF-16 code unit class, weighted towards the characters at the boundary.
    const char = fc.oneof(fc.constantFrom('\u0000', '\t', '\n', '\r', '\r\n', '\u000b', '\u001b', '\u007f', '\u0085', '\u00a0', '\u2028', '\u202e', '\u2066', '\u2069', '\ufeff', 'a', ' ', '内'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }))
    const seen = { accepted: 0, refused: 0 }
    await fc.assert(fc.asyncProperty(fc.array(char, { maxLength: 12 }).map((a) => a.join('')), async (source) => {
      const count = (await t.store.registry.list('acme')).length
      const res = await t.call('POST', `${API_BASE}/registry`, { body: entry(source) })
      if (res.status === 201) {
        seen.accepted++
        const id = (await json(res)).id
        expect((await t.store.registry.get('acme', id))!.source).toBe(source)
        expect((await json(await t.call('GET', `${API_BASE}/registry`, { token: t.tokens.viewer }))).items.find((e: any) => e.id === id).source).toBe(source)
      } else {
        seen.refused++
        expect(res.status).toBe(400)
        expect((await t.store.registry.list('acme')).length).toBe(count)
      }
    }), { numRuns: 100 })
    expect(seen.accepted).toBeGreaterThan(0)
    expect(seen.refused).toBeGreaterThan(0)
  }, 120_000)
})
