import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cpuSignature, findLlamaServer } from './llama-server-binary.node.ts'

const SCRIPT = fileURLToPath(new URL('../../../../tooling/scripts/build-llama-server.sh', import.meta.url))

function fakeBuild(root: string, dir: string, mtimeSec: number): string {
  const bin = join(root, dir, 'bin')
  mkdirSync(bin, { recursive: true })
  writeFileSync(join(bin, 'llama-server'), '#!/bin/sh\n')
  chmodSync(join(bin, 'llama-server'), 0o755)
  utimesSync(join(root, dir), mtimeSec, mtimeSec)
  return join(bin, 'llama-server')
}

describe('the llama-server build cache', () => {
  it('should compute the processor signature the build script puts in its key', () => {
    // --print-path-only prints where the build for this machine goes, built or not.
    const r = spawnSync('bash', [SCRIPT, '--print-path-only'], { encoding: 'utf8' })
    if (r.status === 2) throw new Error(`the build script could not run: ${r.stderr}`)
    const key = r.stdout.trim().split('/').at(-3)!
    expect(key.endsWith(`-${cpuSignature()}`)).toBe(true)
  })

  it('should hash sorted unique flags with the architecture, so flag order does not matter', () => {
    const a = cpuSignature('processor : 0\nflags\t\t: sse2 avx2 fma\n', 'x86_64')
    expect(cpuSignature('flags : fma avx2 sse2 avx2\n', 'x86_64')).toBe(a)
    expect(cpuSignature('flags : fma avx2 sse2 amx_int8\n', 'x86_64')).not.toBe(a)
    expect(cpuSignature('flags : fma avx2 sse2\n', 'aarch64')).not.toBe(a)
  })

  it('should prefer a build for this processor over a newer one made on another', () => {
    const root = mkdtempSync(join(tmpdir(), 'kt-llama-cache-'))
    try {
      const cache = join(root, 'llama-server')
      const mine = fakeBuild(cache, `v0.5.0-abcdef012345-${cpuSignature()}`, 1_000_000)
      fakeBuild(cache, 'v0.5.0-abcdef012345-00000000', 2_000_000)
      fakeBuild(cache, 'v0.4.0-abcdef012345-11111111', 3_000_000)
      const env = { KERNELTUNE_CACHE_DIR: root, PATH: '' }
      expect(findLlamaServer('v0.5.0', env)).toEqual({ path: mine, source: 'cache' })
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
