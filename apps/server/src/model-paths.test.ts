import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { API_BASE } from './app.ts'
import { inProcess } from './in-process.ts'
import { modelDirectories } from './model-paths.node.ts'
import { SMALL_RUN, testApp } from './test-helpers.ts'

// Model paths named by network requests (issue 23 item 15): only GGUFs under a --model-dir, real
// paths (symlinks and `..` followed), and no error that quotes a file's bytes or tells whether a
// file outside exists.
const root = realpathSync(mkdtempSync(join(tmpdir(), 'kt-model-dirs-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const models = join(root, 'models')
const secrets = join(root, 'secrets')
mkdirSync(join(models, 'sub'), { recursive: true })
mkdirSync(secrets)
// A GGUF header's first bytes (magic, version 3, no tensors, no metadata): all the check reads.
writeFileSync(join(models, 'm.gguf'), Buffer.concat([Buffer.from('GGUF'), Buffer.from([3, 0, 0, 0]), Buffer.alloc(16)]))
writeFileSync(join(models, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n')
writeFileSync(join(secrets, 'key.gguf'), Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(20)]))
symlinkSync(secrets, join(models, 'escape'))
symlinkSync(join(secrets, 'key.gguf'), join(models, 'key-link.gguf'))

type T = Awaited<ReturnType<typeof testApp>>
const post = async (t: T, modelPath: string) => {
  const res = await t.call('POST', `${API_BASE}/runs`, { token: t.tokens.operator, body: { ...SMALL_RUN, modelPath } })
  return { status: res.status, body: (await res.json()) as any }
}

describe('modelPath over HTTP', () => {
  it('should refuse any modelPath when the server allows no model directory, saying how to allow one, whether the file exists or not', async () => {
    const t = await testApp()
    const passwd = await post(t, '/etc/passwd')
    expect([passwd.status, passwd.body.error.code]).toEqual([403, 'FORBIDDEN'])
    expect(passwd.body.error.message).toMatch(/--model-dir DIR/)
    expect(JSON.stringify(passwd.body)).not.toMatch(/root:|"root"|magic.*got/i)
    const nothing = await post(t, '/etc/no-such-file-here')
    expect([nothing.status, nothing.body.error.message.replace('no-such-file-here', 'passwd')]).toEqual([403, passwd.body.error.message])
    expect((await t.store.runs.list(null)).total).toBe(0)
  })

  it('should accept a GGUF under a --model-dir (by absolute or relative path) and store its real path', async () => {
    const t = await testApp({}, { modelPaths: await modelDirectories([models]) })
    const abs = await post(t, join(models, 'm.gguf'))
    expect([abs.status, abs.body.target.modelPath]).toEqual([202, join(models, 'm.gguf')])
    const rel = await post(t, 'sub/../m.gguf')
    expect([rel.status, rel.body.target.modelPath]).toEqual([202, join(models, 'm.gguf')])
    await t.queue.idle()
  })

  it('should refuse paths that leave the directories (.., symlinks) with the same answer as a file outside, and quote no file bytes', async () => {
    const t = await testApp({}, { modelPaths: await modelDirectories([models]) })
    const outside = await post(t, '/etc/passwd')
    expect([outside.status, outside.body.error.code]).toEqual([403, 'FORBIDDEN'])
    expect(outside.body.error.message).toContain(models)
    const same = (p: string) => outside.body.error.message.replace(JSON.stringify('/etc/passwd'), JSON.stringify(p))
    for (const p of [join(models, '..', 'secrets', 'key.gguf'), join(models, 'escape', 'key.gguf'), join(models, 'key-link.gguf'), join(models, 'escape', 'no-such.gguf'), '../secrets/key.gguf', '/etc/no-such-file-here']) {
      const r = await post(t, p)
      expect([p, r.status, r.body.error.message]).toEqual([p, 403, same(p)])
    }
    // Inside: a non-GGUF is refused without its bytes, a missing file is a 404, a directory a 400.
    const notGguf = await post(t, join(models, 'passwd'))
    expect([notGguf.status, notGguf.body.error.code, notGguf.body.error.message]).toEqual([400, 'INVALID_INPUT', expect.stringMatching(/is not a GGUF file/)])
    expect(JSON.stringify(notGguf.body)).not.toMatch(/root:|"root"/)
    expect((await post(t, join(models, 'nope.gguf'))).status).toBe(404)
    expect((await post(t, join(models, 'sub'))).status).toBe(400)
    expect((await t.store.runs.list(null)).total).toBe(0)
  })

  it('should answer 400, quoting nothing of the path, for a path Node cannot look up: a NUL, a 300-character name (issue 34 item 26)', async () => {
    const paths = await modelDirectories([models])
    const long = 'x'.repeat(300) + '.gguf'
    for (const [p, why] of [[join(models, 'm.gguf\u0000.txt'), /contains a NUL byte/], ['m.gguf\u0000', /contains a NUL byte/], [join(models, long), /longer than this file system allows/], [long, /longer than this file system allows/], [join(models, 'sub', 'y'.repeat(5000)), /longer than/]] as const) {
      const err = await paths.resolve(p).then(() => undefined, (e: unknown) => e)
      expect(err, p.slice(0, 40)).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(why) })
      expect((err as Error).message).not.toMatch(/xxxx|yyyy|m\.gguf|models/)
    }
    // Over HTTP (the NUL one is refused before, as text that hides: see hidden-text.test.ts).
    const t = await testApp({}, { modelPaths: paths })
    const res = await post(t, long)
    expect([res.status, res.body.error.code, res.body.error.problems]).toEqual([400, 'INVALID_INPUT', [expect.stringMatching(/^body\.modelPath: has a file name or path longer/)]])
    expect(JSON.stringify(res.body)).not.toContain('xxxx')
    expect((await t.store.runs.list(null)).total).toBe(0)
  })

  it('should leave in-process callers (the embedded CLI, which runs as the file\'s user) unrestricted', async () => {
    const t = await testApp()
    const res = await t.app.request(`${API_BASE}/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...SMALL_RUN, modelPath: join(secrets, 'key.gguf') }) }, inProcess({ role: 'operator', tenant: 'acme', tokenId: 'embedded-cli' }))
    expect(res.status).toBe(202)
    await t.queue.idle()
  })

  it('should refuse to start with a --model-dir that is not a directory', async () => {
    await expect(modelDirectories([join(root, 'missing')])).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/--model-dir .*missing is not a directory/) })
    await expect(modelDirectories([join(models, 'm.gguf')])).rejects.toMatchObject({ code: 'INVALID_INPUT' })
  })
})
