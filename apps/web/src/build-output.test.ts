/**
 * The dashboard build's output (issue 34 item 5): `npm run demo` installs the workspace, whose
 * `prepare` runs `vite build --logLevel warn` here; it printed 145 lines of "use client" notes from
 * @tanstack/react-query. Now it prints one line, and keeps every other warning.
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { builtLine, isDependencyUseClientNote } from './build-output.ts'

const NOTE = 'The semantics of the module level directive "use client" in "../../node_modules/.pnpm/@tanstack+react-query@5.108.0/node_modules/@tanstack/react-query/build/modern/useQuery.js" may not be preserved when bundling.'

describe('isDependencyUseClientNote', () => {
  it('drops the "use client" directive notes of dependencies only', () => {
    expect(isDependencyUseClientNote({ code: 'MODULE_LEVEL_DIRECTIVE', message: NOTE })).toBe(true)
    expect(isDependencyUseClientNote({ code: 'MODULE_LEVEL_DIRECTIVE', message: NOTE, id: '/repo/node_modules/.pnpm/x/node_modules/@tanstack/react-query/build/modern/useQuery.js' })).toBe(true)
    // The same directive in the page's own code is worth seeing, and so is any other warning.
    expect(isDependencyUseClientNote({ code: 'MODULE_LEVEL_DIRECTIVE', message: 'The semantics of the module level directive "use client" in "ui/app.tsx" may not be preserved', id: '/repo/apps/web/ui/app.tsx' })).toBe(false)
    expect(isDependencyUseClientNote({ code: 'MODULE_LEVEL_DIRECTIVE', message: NOTE.replace('use client', 'use server') })).toBe(false)
    expect(isDependencyUseClientNote({ code: 'CIRCULAR_DEPENDENCY', message: NOTE })).toBe(false)
    expect(isDependencyUseClientNote({ message: NOTE })).toBe(false)
  })

  it('says in one line where the page went, its files, size and time', () => {
    expect(builtLine('dist', 9, 681_984, 13_800)).toBe('dashboard built: dist, 9 files, 666 KiB, 13.8 s')
    expect(builtLine('out', 1, 512, 40)).toBe('dashboard built: out, 1 file, 1 KiB, 0.0 s')
  })
})

describe('the dashboard build as `prepare` runs it', () => {
  const out = mkdtempSync(join(tmpdir(), 'kerneltune-web-build-'))
  afterAll(() => rmSync(out, { recursive: true, force: true }))

  it('prints one line that the dashboard was built, and no bundler notes', () => {
    const vite = createRequire(import.meta.url).resolve('vite/package.json').replace(/package\.json$/, 'bin/vite.js')
    const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn', '--outDir', out, '--emptyOutDir'], { cwd: new URL('..', import.meta.url), env: { ...process.env, NODE_ENV: 'production', NO_COLOR: '1' }, encoding: 'utf8' })
    expect(r.status).toBe(0)
    const lines = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^dashboard built: \S+, \d+ files, \d+ KiB, \d+\.\d s$/)
    const files = Number(/(\d+) files/.exec(lines[0]!)![1])
    const written = readdirSync(out, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length
    expect(files).toBe(written)
  }, 120_000)
})
