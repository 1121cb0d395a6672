/**
 * Test helper: which modules a script loads, as Node resolves them. The script (TypeScript, run
 * through tsx from source, as the start-up benchmark runs the CLI) is written to a temporary
 * directory and run in a child process whose resolve hook (on Node's loader thread) logs every
 * module URL; the CLI's tests of `--help` and `translate` check that list against what those
 * commands may load. Node only (module hooks); `cwd` must resolve tsx.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export interface LoadedModules {
  readonly status: number | null
  readonly stderr: string
  /** Every module URL resolved, once each, in first-resolved order, without the script itself. */
  readonly loaded: readonly string[]
}

/** Runs `script` (a .mts module's source) from `cwd` and lists the modules it loaded. */
export function modulesLoadedBy(script: string, cwd: string): LoadedModules {
  const dir = mkdtempSync(join(tmpdir(), 'kerneltune-loaded-'))
  const log = join(dir, 'loaded.txt')
  writeFileSync(log, '')
  writeFileSync(join(dir, 'hooks.mjs'), `import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) { const r = await next(specifier, context); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r }`)
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})`)
  writeFileSync(join(dir, 'script.mts'), script)
  const r = spawnSync(process.execPath, ['--conditions=@kerneltune/source', '--import', 'tsx', '--import', join(dir, 'register.mjs'), join(dir, 'script.mts')], { cwd, encoding: 'utf8' })
  const loaded = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].filter((u) => !u.startsWith(pathToFileURL(dir).href))
  return { status: r.status, stderr: r.stderr, loaded }
}
