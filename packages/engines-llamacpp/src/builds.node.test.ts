// The v0.5.0 inventory against the real binary: every flag it lists appears in `llama-server
// --help` of the build tooling/scripts/build-llama-server.sh makes from the same source, with
// the --load-mode values, and the switches it dropped are gone.
import { execFileSync, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { llamacppInventory } from './builds.ts'
import { LLAMACPP_VERSION } from './facts.ts'

const SCRIPT = fileURLToPath(new URL('../../../tooling/scripts/build-llama-server.sh', import.meta.url))
const found = spawnSync('bash', [SCRIPT, '--print-path-only'], { encoding: 'utf8' })
const BIN = process.env.KERNELTUNE_LLAMA_SERVER ?? (found.status === 0 ? found.stdout.trim() : '')

describe.skipIf(requireOrSkip(BIN !== '', 'llama-server: not built (bash tooling/scripts/build-llama-server.sh)', { runtimes: ['node'] }))(`llama-server ${LLAMACPP_VERSION} --help`, () => {
  const help = () => execFileSync(BIN, ['--help'], { encoding: 'utf8' })
  // llama-server prints its version on stderr.
  const version = () => {
    const r = spawnSync(BIN, ['--version'], { encoding: 'utf8' })
    return r.stdout + r.stderr
  }

  it('should be the bundled release', () => {
    expect(version()).toMatch(/version: 0\.5\.0/)
  })

  it('should list every flag of the inventory, with the load modes, and none of the dropped switches', () => {
    const text = help()
    for (const flag of Object.keys(llamacppInventory(LLAMACPP_VERSION).flags)) expect(text).toMatch(new RegExp(`(^|[ ,])${flag}[ ,\\n]`, 'm'))
    for (const mode of ['auto', 'none', 'mmap', 'mlock', 'mmap+mlock', 'dio']) expect(text).toContain(`- ${mode}:`)
    expect(text).toContain('--flash-attn [on|off|auto]')
    expect(text).not.toMatch(/--no-mmap|--mlock\b/)
  })
})
