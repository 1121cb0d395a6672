// The checks of `release:check` that look at one tarball or one copy at a time: the packed
// manifest, publint, arethetypeswrong, the changesets dry run and the JSR dry runs.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs'
import { basename, join } from 'node:path'
import { BIN, ROOT, libraryPackages, readPackage, run } from './lib.mjs'

const PNPM_VERSION = '10.34.9'

/** pnpm at the pinned version from PATH, else through npx (as bootstrap.mjs does). */
export function pnpmCommand() {
  try {
    const v = execFileSync('pnpm', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    if (v === PNPM_VERSION) return ['pnpm', []]
  } catch {
    // not installed: npx fetches it
  }
  return ['npx', ['--yes', `pnpm@${PNPM_VERSION}`]]
}

/** Every workspace package that is published: packages/* and apps/* without "private": true. */
export function publicPackages() {
  const apps = readdirSync(join(ROOT, 'apps'))
    .filter((d) => existsSync(join(ROOT, 'apps', d, 'package.json')))
    .map((d) => ({ dir: join(ROOT, 'apps', d), rel: `apps/${d}`, pkg: readPackage(join(ROOT, 'apps', d)) }))
  return [...libraryPackages(), ...apps].filter((p) => !p.pkg.private)
}

const tarList = (file) => execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''))

/** Targets of an exports map, with the conditions that lead to each. */
function exportTargets(exp, path = []) {
  if (typeof exp === 'string') return [{ path, target: exp }]
  if (!exp || typeof exp !== 'object') return []
  return Object.entries(exp).flatMap(([k, v]) => exportTargets(v, [...path, k]))
}

/** What a consumer of the tarball relies on and publint does not check. */
export function checkManifest(file, m, source) {
  const name = m.name ?? basename(file)
  const out = []
  // publishConfig.exports replaces exports in the tarball: a subpath added to one and not the
  // other would vanish from the published package.
  const keys = (e) => Object.keys(e ?? {}).sort().join(', ')
  if (source && keys(source.exports) !== keys(m.exports)) out.push(`${name}: published exports (${keys(m.exports)}) differ from the workspace exports (${keys(source.exports)}); update publishConfig.exports`)
  const files = new Set(tarList(file))
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, spec] of Object.entries(m[field] ?? {})) {
      if (/^(workspace|link|file):/.test(spec)) out.push(`${name}: ${field}.${dep} is "${spec}", which only resolves inside the workspace`)
    }
  }
  if (!m.license) out.push(`${name}: no "license" field`)
  if (!m.description) out.push(`${name}: no "description" field`)
  if (!files.has('README.md')) out.push(`${name}: README.md is not in the tarball`)
  if (!m.exports) out.push(`${name}: no "exports" map`)
  for (const { path, target } of exportTargets(m.exports)) {
    const rel = target.replace(/^\.\//, '')
    // TypeScript sources behind a runtime condition break Deno (it refuses to strip types under
    // node_modules) and tie consumers to our TS settings: published exports point at dist/.
    if (/\.ts$/.test(rel) && !rel.endsWith('.d.ts')) out.push(`${name}: exports ${path.join(' > ')} points at TypeScript source ${target}`)
    else if (!rel.includes('*') && !files.has(rel)) out.push(`${name}: exports ${path.join(' > ')} → ${target} is not in the tarball`)
  }
  for (const [bin, target] of Object.entries(typeof m.bin === 'string' ? { [m.name]: m.bin } : m.bin ?? {})) {
    if (!files.has(target.replace(/^\.\//, ''))) out.push(`${name}: bin ${bin} → ${target} is not in the tarball`)
  }
  return out
}

/** publint on the tarball itself (what npm would serve), warnings and errors. */
export async function lintTarball(file) {
  const { publint } = await import('publint')
  const { formatMessage } = await import('publint/utils')
  const data = readFileSync(file)
  const { messages, pkg } = await publint({ pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) }, level: 'warning' })
  return messages.map((msg) => `${pkg.name}: publint ${msg.type}: ${formatMessage(msg, pkg, { color: false }) ?? msg.code}`)
}

/**
 * arethetypeswrong on the tarball, in this process (one TypeScript load for every package), with
 * the CLI's esm-only profile: the packages are ESM only ("type": "module", no require condition),
 * so the node10 and require-from-CommonJS resolutions are ignored, as `attw --profile esm-only`
 * ignores them. A package without types at all is a problem too: every one ships .d.ts files.
 */
export async function typesTarball(file) {
  const { checkPackage, createPackageFromTarballData } = await import('@arethetypeswrong/core')
  const { problemKindInfo } = await import('@arethetypeswrong/core/problems')
  const ignored = ['node10', 'node16-cjs']
  const analysis = await checkPackage(createPackageFromTarballData(new Uint8Array(readFileSync(file))))
  if (!analysis.types) return [`${basename(file)}: arethetypeswrong found no types`]
  return analysis.problems
    .filter((p) => !('resolutionKind' in p) || !ignored.includes(p.resolutionKind))
    .map((p) => `${analysis.packageName}: arethetypeswrong ${p.kind} (${problemKindInfo[p.kind]?.title ?? ''})${p.entrypoint ? ` at ${p.entrypoint}` : ''}${p.resolutionKind ? ` [${p.resolutionKind}]` : ''}${p.fileName ? ` in ${p.fileName}` : ''}${p.moduleSpecifier ? ` importing ${p.moduleSpecifier}` : ''}`)
}

/**
 * `changeset version` on a copy of the manifests and changesets (the real tree is not touched):
 * every pending changeset must produce a new version and a changelog entry.
 */
export async function changesetDryRun(work, log) {
  const copy = join(work, 'changeset')
  mkdirSync(copy, { recursive: true })
  for (const f of ['package.json', 'pnpm-workspace.yaml']) cpSync(join(ROOT, f), join(copy, f))
  cpSync(join(ROOT, '.changeset'), join(copy, '.changeset'), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir')
  const members = []
  for (const group of ['packages', 'apps', 'examples']) {
    if (!existsSync(join(ROOT, group))) continue
    for (const d of readdirSync(join(ROOT, group))) {
      if (!existsSync(join(ROOT, group, d, 'package.json'))) continue
      mkdirSync(join(copy, group, d), { recursive: true })
      cpSync(join(ROOT, group, d, 'package.json'), join(copy, group, d, 'package.json'))
      members.push({ rel: `${group}/${d}`, before: readPackage(join(ROOT, group, d)) })
    }
  }
  mkdirSync(join(copy, 'tooling'), { recursive: true })
  cpSync(join(ROOT, 'tooling', 'package.json'), join(copy, 'tooling', 'package.json'))
  const pending = readdirSync(join(ROOT, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md')
  if (pending.length === 0) {
    log('  no pending changesets: nothing to version')
    return []
  }
  const r = await run(join(BIN, 'changeset'), ['version'], { cwd: copy, quiet: true })
  if (r.code !== 0) return [`changeset version failed (exit ${r.code}):\n${r.text.split('\n').slice(-20).join('\n')}`]
  const out = []
  let bumped = 0
  for (const { rel, before } of members) {
    if (before.private) continue
    const after = readPackage(join(copy, rel))
    if (after.version === before.version) continue
    bumped++
    const changelog = join(copy, rel, 'CHANGELOG.md')
    if (!existsSync(changelog) || !readFileSync(changelog, 'utf8').includes(`## ${after.version}`)) out.push(`${before.name}: version ${after.version} has no CHANGELOG.md entry`)
  }
  if (bumped === 0) out.push(`${pending.length} pending changeset(s) bumped no public package`)
  const sample = members.find((m) => !m.before.private)
  if (sample) log(`  ${pending.length} changeset(s): ${bumped} public package(s) bumped, e.g. ${sample.before.name} ${sample.before.version} → ${readPackage(join(copy, sample.rel)).version}`)
  return out
}

/**
 * What a failed dry run printed: each error's kind and location when JSR listed them (its tail
 * alone shows only the last of, say, 27 slow types), else the last lines.
 */
export function jsrFailure(text) {
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '')
  const located = []
  let kind = ''
  for (const line of plain.split('\n')) {
    const k = /^error\[([a-z-]+)\]/.exec(line)
    if (k) kind = k[1]
    const at = /-->\s+(\S+)/.exec(line)
    if (at && kind) located.push(`  ${kind}: ${at[1]}`)
  }
  if (located.length === 0) return plain.trim().split('\n').slice(-15).join('\n')
  const hint = located.some((l) => l.includes('missing-explicit')) ? '\n  slow types: give these symbols explicit types (docs/releasing.md, "JSR")' : ''
  return located.join('\n') + hint
}

/** `deno publish --dry-run` in every package that has a jsr.json. */
export async function jsrDryRuns(log) {
  const out = []
  const withJsr = libraryPackages().filter((p) => existsSync(join(p.dir, 'jsr.json')))
  if (withJsr.length === 0) return ['no package has a jsr.json']
  for (const p of withJsr) {
    const jsr = JSON.parse(readFileSync(join(p.dir, 'jsr.json'), 'utf8'))
    if (jsr.name !== p.pkg.name) out.push(`${p.rel}/jsr.json: name ${jsr.name} is not ${p.pkg.name}`)
    // The version lives in package.json only (changesets bumps it); the dry run passes it along.
    if (jsr.version !== undefined) out.push(`${p.rel}/jsr.json: has a version; leave it out (package.json's is passed with --set-version)`)
    const subpaths = Object.keys(p.pkg.exports ?? {}).filter((k) => !k.endsWith('.json')).sort().join(', ')
    if (Object.keys(jsr.exports ?? {}).sort().join(', ') !== subpaths) out.push(`${p.rel}/jsr.json: exports differ from package.json's (${subpaths})`)
    // --no-check: the workspace type check (npm test) already covers these sources, and one deno
    // type check per package costs about a minute on 2 cores. No --allow-slow-types: the public API
    // has explicit types, so JSR can generate .d.ts for Node users (see docs/releasing.md).
    const r = await run(join(BIN, 'deno'), ['publish', '--dry-run', '--allow-dirty', '--no-check', '--set-version', p.pkg.version], { cwd: p.dir, quiet: true, env: { DENO_NO_UPDATE_CHECK: '1' } })
    if (r.code !== 0) out.push(`${p.pkg.name}: deno publish --dry-run failed (exit ${r.code}):\n${jsrFailure(r.text)}`)
  }
  log(`  ${withJsr.length} jsr.json package(s) dry-run`)
  return out
}


