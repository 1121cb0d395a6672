import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { main } from './main.ts'
import { CLI_VERSION } from './version.ts'

function capture() {
  const out: string[] = []
  return { out, io: { stdout: (t: string) => void out.push(t), stderr: () => {}, interactive: false, env: {}, cwd: process.cwd() } }
}

describe('kerneltune --version', () => {
  it('matches the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    expect(CLI_VERSION).toBe(pkg.version)
  })

  it('prints the name and version, as text and as JSON, and exits 0', async () => {
    const a = capture()
    expect(await main(['--version'], a.io)).toBe(0)
    expect(a.out.join('')).toBe(`kerneltune ${CLI_VERSION}\n`)
    const b = capture()
    expect(await main(['--version', '--json'], b.io)).toBe(0)
    expect(JSON.parse(b.out.join(''))).toEqual({ name: 'kerneltune', version: CLI_VERSION })
  })

  it('is listed in the root help only', async () => {
    const a = capture()
    await main(['--help'], a.io)
    expect(a.out.join('')).toContain('--version')
    const b = capture()
    await main(['translate', '--help'], b.io)
    expect(b.out.join('')).not.toContain('Print the version and exit.')
  })
})
