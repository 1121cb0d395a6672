import { createServer } from 'node:net'
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it, expect } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { findDenoBinary, runInSandbox } from './deno-sandbox.node.ts'

const deno = findDenoBinary()
const LIMITS = { timeoutMs: 15_000, memoryMb: 128 }
const SLOW = 60_000

describe.skipIf(requireOrSkip(Boolean(deno), 'Deno: no deno binary (it is a devDependency: pnpm install)'))('runInSandbox', () => {
  it('should run a well-behaved module and return its result', async () => {
    const r = await runInSandbox('export default (ctx) => ({ twice: ctx.input * 2, bytes: ctx.readFile("w.bin") })', { input: 21, files: { 'w.bin': new Uint8Array([1, 2, 3]) }, limits: LIMITS })
    expect(r.outcome).toBe('ok')
    expect(r.result).toEqual({ twice: 42, bytes: [1, 2, 3] })
  }, SLOW)

  it('should stop a module that connects to a loopback server, and the server sees nothing', async () => {
    let connections = 0
    const server = createServer((s) => { connections++; s.destroy() })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    try {
      const r = await runInSandbox(`export default async () => (await fetch('http://127.0.0.1:${port}/')).text()`, { limits: LIMITS })
      const t = await runInSandbox(`export default async () => { const c = await Deno.connect({ hostname: '127.0.0.1', port: ${port} }); c.close() }`, { limits: LIMITS })
      expect([r.outcome, r.denied, t.outcome, t.denied]).toEqual(['denied', 'net', 'denied', 'net'])
      expect(connections).toBe(0)
    } finally {
      server.close()
    }
  }, SLOW)

  it('should stop reading a file outside its folder, also through a static import', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-secret-'))
    const secret = join(dir, 'secret.json')
    writeFileSync(secret, '{"token":"s3cret"}')
    const read = await runInSandbox(`export default () => Deno.readTextFileSync(${JSON.stringify(secret)})`, { limits: LIMITS })
    const imported = await runInSandbox(`import s from ${JSON.stringify('file://' + secret)} with { type: 'json' }\nexport default () => s`, { limits: LIMITS })
    expect([read.outcome, read.denied]).toEqual(['denied', 'read'])
    expect([imported.outcome, imported.denied]).toEqual(['denied', 'read'])
    expect(JSON.stringify([read, imported])).not.toContain('s3cret')
  }, SLOW)

  it('should stop reading the environment, spawning a process, FFI and writing outside', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'kt-out-'))
    const cases = [
      ['env', 'export default () => Deno.env.toObject()'],
      ['run', 'export default () => new Deno.Command("/bin/true").outputSync()'],
      ['ffi', 'export default () => Deno.dlopen("/lib/x86_64-linux-gnu/libc.so.6", {})'],
      ['write', `export default () => Deno.writeTextFileSync(${JSON.stringify(join(outside, 'leak.txt'))}, 'x')`],
    ] as const
    for (const [perm, src] of cases) {
      const r = await runInSandbox(src, { limits: LIMITS })
      expect([perm, r.outcome, r.denied]).toEqual([perm, 'denied', perm])
    }
    expect(readdirSync(outside)).toEqual([])
  }, SLOW)

  it('should kill a module that loops forever at the wall-clock limit', async () => {
    const r = await runInSandbox('export default () => { for (;;) {} }', { limits: { timeoutMs: 3000, memoryMb: 128 } })
    expect(r.outcome).toBe('timeout')
    expect(r.signal).toBe('SIGKILL')
  }, SLOW)

  it('should stop a module that exhausts the memory cap', async () => {
    const r = await runInSandbox('export default () => { const a = []; for (;;) a.push(new Array(1e6).fill(1.5)) }', { limits: { timeoutMs: 30_000, memoryMb: 64 } })
    expect(r.outcome).toBe('memory')
  }, SLOW)

  it('should report a module without a default export function as invalid', async () => {
    const r = await runInSandbox('export const x = 1', { limits: LIMITS })
    expect(r.outcome).toBe('invalid-module')
  }, SLOW)
})
