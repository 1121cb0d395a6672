import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../main.ts'
import { memoryIo } from '../cli/testing.ts'

const dir = mkdtempSync(join(tmpdir(), 'sweep-engine-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function sweep(args: readonly string[], env: Record<string, string>) {
  const m = memoryIo(dir, env)
  const code = await main(['sweep', ...args, '--db', join(dir, 'kt.db')], m.io)
  return { code, out: m.out(), err: m.err() }
}

describe('kerneltune sweep --engine vllm --backend server', () => {
  it('should say plainly that vLLM is not installed, with the install hint, and exit 2', async () => {
    // An empty PATH and no KERNELTUNE_VLLM: no vllm anywhere.
    const r = await sweep(['--engine', 'vllm', '--backend', 'server', '--json'], { PATH: join(dir, 'empty') })
    expect(r.code).toBe(2)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ ok: false, error: { code: 'ENGINE_NOT_INSTALLED' } })
    expect(j.error.message).toMatch(/vllm is not installed here: no vllm on PATH and KERNELTUNE_VLLM is unset\. install it with `pip install vllm==0\.32\.0`/)
    const human = await sweep(['--engine', 'vllm', '--backend', 'server'], { PATH: join(dir, 'empty') })
    expect(human.code).toBe(2)
    expect(human.err).toMatch(/pip install vllm==0\.32\.0/)
  })

  it('should plan vLLM\'s serving space from its release when vllm is installed (here a stand-in on PATH), launching nothing with --plan', async () => {
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    // The stand-in leaves a mark if anything runs it: the plan must not.
    const mark = join(dir, 'ran')
    writeFileSync(join(bin, 'vllm'), `#!/bin/sh\ntouch ${mark}\nexit 1\n`)
    chmodSync(join(bin, 'vllm'), 0o755)
    const r = await sweep(['--engine', 'vllm', '--backend', 'server', '--quick', '--plan', '--json'], { PATH: bin })
    expect([r.code, r.err]).toEqual([0, expect.stringMatching(/vLLM 0\.32\.0 at .*bin\/vllm/)])
    const j = JSON.parse(r.out)
    // Chunked prefill off and on (--no-enable-chunked-prefill / --enable-chunked-prefill), each against vLLM's own defaults.
    expect(j).toMatchObject({ ok: true, engine: 'vllm', measured: false, mode: 'quick', space: { kv_layout: ['paged', 'chunked'] }, pruned: [] })
    expect(j.candidates.map((c: { combo: object }) => c.combo)).toEqual([{ kv_layout: 'paged' }, { kv_layout: 'chunked' }])
    const standard = JSON.parse((await sweep(['--engine', 'vllm', '--backend', 'server', '--plan', '--json'], { PATH: bin })).out)
    // The pinned release has no XFORMERS backend: it is not in the space.
    expect(standard.space.attention_backend).not.toContain('xformers')
    expect(standard.candidates.length).toBe(standard.space.kv_layout.length * standard.space.activation_dtype.length * standard.space.attention_backend.length - standard.pruned.length)
    const human = await sweep(['--engine', 'vllm', '--backend', 'server', '--quick', '--plan'], { PATH: bin })
    expect(human.out).toMatch(/^plan \(vllm, quick mode\): 2 combinations against the defaults, 0 removed by the rules; nothing launched or measured$/m)
    const { existsSync } = await import('node:fs')
    expect(existsSync(mark)).toBe(false)
  })

  it('should ask for --backend server, and say which engines it plans as servers', async () => {
    const r = await sweep(['--engine', 'tgi'], { PATH: join(dir, 'empty') })
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/--engine tgi is measured as its own server: add --backend server/)
    const bin = join(dir, 'tgi-bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'text-generation-launcher'), '#!/bin/sh\nexit 1\n')
    chmodSync(join(bin, 'text-generation-launcher'), 0o755)
    const tgi = await sweep(['--engine', 'tgi', '--backend', 'server', '--plan', '--json'], { PATH: bin })
    expect(JSON.parse(tgi.out)).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', message: expect.stringMatching(/plans no serving space for .* yet .*kerneltune run create/) } })
  })
})
