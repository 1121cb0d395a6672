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
  const code = await main(['sweep', ...args], m.io)
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

  it('should find an installed vllm on PATH (here a stand-in script) and say what the sweep does not plan yet', async () => {
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'vllm'), '#!/bin/sh\nexit 0\n')
    chmodSync(join(bin, 'vllm'), 0o755)
    const r = await sweep(['--engine', 'vllm', '--backend', 'server', '--json'], { PATH: bin })
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', message: expect.stringMatching(/is installed \(.*bin\/vllm\).*kerneltune run create/) } })
  })

  it('should ask for --backend server', async () => {
    const r = await sweep(['--engine', 'tgi'], { PATH: join(dir, 'empty') })
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/--engine tgi is measured as its own server: add --backend server/)
  })
})
