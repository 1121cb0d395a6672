#!/usr/bin/env node
// `pnpm release:check`: proves every public package installs and works outside the workspace.
// It builds, packs each public package with pnpm (workspace:* becomes the real version and
// publishConfig applies), checks each tarball's manifest, publint and arethetypeswrong, serves the
// tarballs from a throwaway @kerneltune-scope registry, installs them all into a scratch project
// in the temp folder with npm, imports every export on Node, Bun and Deno (npm: specifiers, one
// process each), installs the CLI globally from its tarball into a scratch prefix and runs
// `kerneltune --help` and `kerneltune roofline`, then dry-runs `changeset version` on a copy and
// `deno publish --dry-run` for each jsr.json. Exit 0 when every check passed, 3 when one did not,
// 1 when the check itself could not run. Flags: --skip-build (reuse dist/), --keep (leave the
// scratch folder), --only=a,b (stages: build pack manifest publint attw install import cli
// changeset jsr).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BIN, run } from './lib.mjs'
import { startScopeRegistry, tarballManifest } from './release-registry.mjs'
import { changesetDryRun, checkManifest, jsrDryRuns, lintTarball, pnpmCommand, publicPackages, typesTarball } from './release-steps.mjs'

const argv = process.argv.slice(2)
const flag = (name) => argv.includes(`--${name}`)
const only = argv.find((a) => a.startsWith('--only='))?.slice(7).split(',')
const wanted = (stage) => !only || only.includes(stage)

const work = mkdtempSync(join(tmpdir(), 'kerneltune-release-'))
const tgzDir = join(work, 'tgz')
const problems = []
const started = Date.now()
const log = (line) => console.log(line)

async function stage(name, fn) {
  if (!wanted(name)) return
  log(`\n### ${name}`)
  const t0 = Date.now()
  const found = (await fn()) ?? []
  for (const p of found) {
    problems.push(`${name}: ${p}`)
    log(`  FAIL ${p}`)
  }
  log(`### ${name}: ${found.length ? `${found.length} problem(s)` : 'ok'} in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
}

/** Runs a command quietly; returns a problem string (with the output's tail) when it fails. */
async function must(what, cmd, args, options = {}) {
  const r = await run(cmd, args, { quiet: true, ...options })
  if (r.code !== 0) return `${what} failed (exit ${r.code}):\n${r.text.split('\n').slice(-25).join('\n')}`
  if (options.show) log(r.text.trimEnd().split('\n').map((l) => `  ${l}`).join('\n'))
  return undefined
}

async function pool(items, size, fn) {
  const out = []
  let next = 0
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i])
    }
  }))
  return out
}

const pkgs = publicPackages()
const [pnpm, pnpmPrefix] = pnpmCommand()
log(`release:check: ${pkgs.length} public packages; scratch folder ${work}`)
let tarballs = []
let registry

try {
  if (!flag('skip-build')) {
    await stage('build', async () => {
      const filters = pkgs.flatMap((p) => ['--filter', `${p.pkg.name}...`])
      const bad = await must('pnpm build', pnpm, [...pnpmPrefix, '-r', '--workspace-concurrency=2', ...filters, 'run', 'build'])
      return bad ? [bad] : []
    })
  }

  // Packing is needed by every later stage, so it runs whatever --only says.
  log('\n### pack')
  const packed = await pool(pkgs, 4, async (p) => {
    const bad = await must(`pnpm pack ${p.pkg.name}`, pnpm, [...pnpmPrefix, 'pack', '--pack-destination', tgzDir], { cwd: p.dir })
    return bad
  })
  for (const bad of packed.filter(Boolean)) problems.push(`pack: ${bad}`)
  tarballs = existsSync(tgzDir) ? readdirSync(tgzDir).filter((f) => f.endsWith('.tgz')).map((f) => join(tgzDir, f)).sort() : []
  log(`### pack: ${tarballs.length} tarball(s) in ${tgzDir}`)
  if (tarballs.length !== pkgs.length) throw new Error(`packed ${tarballs.length} of ${pkgs.length} public packages; see the pack failures above`)
  const manifests = tarballs.map((file) => ({ file, manifest: tarballManifest(file) }))

  await stage('manifest', async () => manifests.flatMap(({ file, manifest }) => checkManifest(file, manifest, pkgs.find((p) => p.pkg.name === manifest.name)?.pkg)))
  await stage('publint', async () => (await pool(tarballs, 4, lintTarball)).flat())
  await stage('attw', async () => (await pool(tarballs, 2, typesTarball)).flat())

  // Everything below installs from the scope registry.
  registry = await startScopeRegistry(tarballs)
  const scope = `--@kerneltune:registry=${registry.url}`
  // --prefer-offline: the global CLI install reuses what the scratch install put in npm's cache.
  const npmFlags = ['--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error', scope]
  const project = join(work, 'project')
  const specs = manifests.flatMap(({ manifest }) => Object.keys(manifest.exports ?? { '.': null })
    .filter((sub) => !sub.endsWith('.json'))
    .map((sub) => ({ name: manifest.name, spec: sub === '.' ? manifest.name : `${manifest.name}/${sub.slice(2)}`, runtimes: manifest.kerneltune?.runtimes ?? ['node', 'bun', 'deno'] })))

  await stage('install', async () => {
    rmSync(project, { recursive: true, force: true })
    const deps = Object.fromEntries(manifests.map(({ manifest }) => [manifest.name, manifest.version]))
    mkdirSync(project, { recursive: true })
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'kerneltune-release-scratch', private: true, type: 'module', dependencies: deps }, null, 2))
    const bad = await must('npm install of every tarball', 'npm', ['install', ...npmFlags], { cwd: project })
    return bad ? [bad] : []
  })

  await stage('import', async () => {
    const found = []
    const script = (runtime, prefix) => `import process from 'node:process'
const specs = ${JSON.stringify(specs.filter((s) => s.runtimes.includes(runtime)).map((s) => s.spec))}
let failed = 0
for (const spec of specs) {
  try {
    const m = await import(${JSON.stringify(prefix)} + spec)
    const n = Object.keys(m).length
    if (n === 0) throw new Error('the module exports nothing')
    console.log('ok ' + spec + ' (' + n + ' exports)')
  } catch (err) {
    failed++
    console.log('FAIL ' + spec + ': ' + (err && err.message ? err.message.split('\\n')[0] : String(err)))
  }
}
console.log('${runtime}: ' + (specs.length - failed) + ' of ' + specs.length + ' imports ok')
process.exit(failed ? 1 : 0)
`
    writeFileSync(join(project, 'import-node.mjs'), script('node', ''))
    writeFileSync(join(project, 'import-bun.mjs'), script('bun', ''))
    writeFileSync(join(project, 'import-deno.mjs'), script('deno', 'npm:'))
    const runs = [
      ['node', process.execPath, ['import-node.mjs']],
      ['bun', join(BIN, 'bun'), ['import-bun.mjs']],
      ['deno', join(BIN, 'deno'), ['run', '-A', '--node-modules-dir=manual', 'import-deno.mjs']],
    ]
    for (const [runtime, cmd, args] of runs) {
      const r = await run(cmd, args, { cwd: project, quiet: true, env: { DENO_NO_UPDATE_CHECK: '1' } })
      const lines = r.text.trim().split('\n')
      log(`  ${lines.at(-1)}`)
      for (const l of lines.filter((x) => x.startsWith('FAIL'))) found.push(`${runtime}: ${l.slice(5)}`)
      if (r.code !== 0 && !lines.some((x) => x.startsWith('FAIL'))) found.push(`${runtime} exited ${r.code}: ${lines.slice(-10).join(' | ')}`)
    }
    return found
  })

  await stage('cli', async () => {
    const cli = manifests.find(({ manifest }) => manifest.bin?.kerneltune)
    if (!cli) return ['no packed package has a kerneltune bin']
    const prefix = join(work, 'global')
    const bad = await must('npm install -g of the CLI tarball', 'npm', ['install', '-g', '--prefix', prefix, cli.file, ...npmFlags], { cwd: work })
    if (bad) return [bad]
    const bin = join(prefix, 'bin', 'kerneltune')
    const found = []
    const help = await run(bin, ['--help'], { cwd: work, quiet: true })
    if (help.code !== 0 || !/roofline/.test(help.text)) found.push(`kerneltune --help exited ${help.code} or lists no commands: ${help.text.slice(0, 500)}`)
    else log(`  kerneltune --help: exit 0, ${help.text.split('\n').length} lines`)
    const roof = await run(bin, ['roofline', '--params-b', '7', '--quant', 'Q4_K', '--mem-bw-gbs', '1008', '--batch', '1', '--json'], { cwd: work, quiet: true })
    try {
      const out = JSON.parse(roof.text.slice(roof.text.indexOf('{')))
      if (roof.code !== 0) throw new Error(`exit ${roof.code}`)
      log(`  kerneltune roofline --json: exit 0, ${Object.keys(out).length} fields`)
    } catch (err) {
      found.push(`kerneltune roofline --json did not answer JSON with exit 0 (${err.message}): ${roof.text.slice(0, 500)}`)
    }
    return found
  })

  await stage('changeset', async () => changesetDryRun(work, log))
  await stage('jsr', async () => jsrDryRuns(log))
} catch (err) {
  console.error(`release:check could not run: ${err.message}`)
  await registry?.close()
  process.exit(1)
}

await registry?.close()
if (!flag('keep')) rmSync(work, { recursive: true, force: true })
else log(`kept ${work}`)
log(`\nrelease:check: ${problems.length ? `${problems.length} problem(s)` : 'every check passed'} in ${((Date.now() - started) / 1000).toFixed(0)} s`)
process.exit(problems.length ? 3 : 0)
