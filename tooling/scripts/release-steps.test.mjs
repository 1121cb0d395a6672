import { describe, it, expect } from 'vitest'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startScopeRegistry } from './release-registry.mjs'
import { BIN } from './lib.mjs'
import { checkManifest, jsrFailure } from './release-steps.mjs'

/** A tarball laid out as npm packs one (everything under package/). */
function tarball(manifest, files) {
  const dir = mkdtempSync(join(tmpdir(), 'release-steps-test-'))
  const pkg = join(dir, 'package')
  for (const [name, text] of Object.entries({ 'package.json': JSON.stringify(manifest), ...files })) {
    mkdirSync(join(pkg, name, '..'), { recursive: true })
    writeFileSync(join(pkg, name), text)
  }
  const file = join(dir, 'pkg.tgz')
  execFileSync('tar', ['-czf', file, '-C', dir, 'package'])
  return file
}

const GOOD = {
  name: '@kerneltune/x', version: '1.0.0', description: 'x', license: 'MIT', type: 'module',
  exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } }, dependencies: { zod: '4.6.7' },
}
const GOOD_FILES = { 'README.md': '# x', 'dist/index.js': 'export const x = 1', 'dist/index.d.ts': 'export declare const x: number' }

describe('release checks of a packed manifest', () => {
  it('should pass a complete tarball', () => {
    expect(checkManifest(tarball(GOOD, GOOD_FILES), GOOD, { exports: { '.': {} } })).toEqual([])
  })

  it('should catch workspace dependencies, TypeScript behind an export, missing files and lost subpaths', () => {
    const bad = {
      ...GOOD, license: undefined,
      dependencies: { '@kerneltune/core': 'workspace:*' },
      exports: { '.': { deno: './src/index.ts', types: './dist/index.d.ts', import: './dist/missing.js' } },
      bin: { x: './bin/x.js' },
    }
    const problems = checkManifest(tarball(bad, GOOD_FILES), bad, { exports: { '.': {}, './node': {} } }).join('\n')
    expect(problems).toMatch(/published exports \(\.\) differ from the workspace exports \(\., \.\/node\)/)
    expect(problems).toMatch(/dependencies\.@kerneltune\/core is "workspace:\*"/)
    expect(problems).toMatch(/no "license" field/)
    expect(problems).toMatch(/exports \. > deno points at TypeScript source/)
    expect(problems).toMatch(/\.\/dist\/missing\.js is not in the tarball/)
    expect(problems).toMatch(/bin x → \.\/bin\/x\.js is not in the tarball/)
  })

  it('should miss no README', () => {
    const { 'README.md': _, ...noReadme } = GOOD_FILES
    expect(checkManifest(tarball(GOOD, noReadme), GOOD).join('\n')).toMatch(/README\.md is not in the tarball/)
  })
})

describe('scope registry', () => {
  it('should serve a packument whose tarball URL and integrity match the packed file', async () => {
    const file = tarball(GOOD, GOOD_FILES)
    const registry = await startScopeRegistry([file])
    try {
      const doc = await (await fetch(`${registry.url}@kerneltune%2fx`)).json()
      expect(doc['dist-tags'].latest).toBe('1.0.0')
      const { dist } = doc.versions['1.0.0']
      const data = Buffer.from(await (await fetch(dist.tarball)).arrayBuffer())
      expect(data.equals(readFileSync(file))).toBe(true)
      expect(dist.integrity).toBe(`sha512-${createHash('sha512').update(data).digest('base64')}`)
      expect((await fetch(`${registry.url}@kerneltune%2fother`)).status).toBe(404)
    } finally {
      await registry.close()
    }
  })
})

describe('JSR dry run failures', () => {
  it('should list every slow type a real deno publish --dry-run reports, with its location', () => {
    const dir = mkdtempSync(join(tmpdir(), 'release-steps-jsr-'))
    writeFileSync(join(dir, 'jsr.json'), JSON.stringify({ name: '@kerneltune/x', exports: { '.': './mod.ts' } }))
    // Two inferred exports (slow types) and one explicit one (not reported).
    writeFileSync(join(dir, 'mod.ts'), 'export const a = [1].map((n) => n)\nexport function b() { return 1 }\nexport const c: number = 1\n')
    let text = ''
    try {
      execFileSync(join(BIN, 'deno'), ['publish', '--dry-run', '--allow-dirty', '--no-check', '--set-version', '1.0.0'], { cwd: dir, stdio: 'pipe', env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' } })
    } catch (e) {
      text = `${e.stdout}${e.stderr}`
    }
    expect(text).not.toBe('')
    const lines = jsrFailure(text).split('\n')
    expect(lines.filter((l) => /^ {2}missing-explicit-(return-)?type: .*mod\.ts:\d+:\d+$/.test(l))).toHaveLength(2)
    expect(lines.some((l) => l.includes('mod.ts:1:'))).toBe(true)
    expect(lines.some((l) => l.includes('mod.ts:2:'))).toBe(true)
    expect(lines.at(-1)).toContain('slow types')
  })

  it('should fall back to the last lines for other failures', () => {
    const text = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n')
    expect(jsrFailure(text).split('\n')).toEqual(Array.from({ length: 15 }, (_, i) => `line ${i + 5}`))
  })
})
