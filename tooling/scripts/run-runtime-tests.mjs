#!/usr/bin/env node
// Runs the library packages' tests (and the tooling's own) under Bun or Deno (Node runs them
// through vitest and turbo). A package lists the runtimes it supports in package.json
// `kerneltune.runtimes`; one that leaves a runtime out says why in `kerneltune.runtimeNotes`.
// It ends with `<runtime>: N passed, N failed, N skipped`, which test-all.mjs adds up. A runtime
// that is not installed is a skip with a reason, except under CI=true, where it is a failure.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { BIN, ROOT, inCi, libraryPackages, readPackage, run, stripAnsi } from './lib.mjs'
import { countBun, countDeno } from './test-summary.mjs'

const runtime = process.argv[2]
// Optional: only these workspace folders (e.g. packages/gguf tooling), to rerun a few quickly.
const only = process.argv.slice(3).map((p) => p.replace(/\/+$/, ''))
if (runtime !== 'bun' && runtime !== 'deno') {
  console.error('usage: run-runtime-tests.mjs bun|deno [packages/NAME|tooling ...]')
  process.exit(2)
}

function hasTests(dir) {
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry)
    if (statSync(p).isDirectory()) {
      if (hasTests(p)) return true
    } else if (entry.endsWith('.test.ts')) return true
  }
  return false
}

// Both runtimes are npm devDependencies, so node_modules/.bin has them after an install.
if (!existsSync(join(BIN, runtime))) {
  const reason = `${runtime} is not installed (node_modules/.bin/${runtime} is missing): run the install (npm test does)`
  if (inCi()) {
    console.error(`${runtime}: CI=true requires it, but ${reason}`)
    console.log(`\n${runtime}: 0 passed, 1 failed, 0 skipped`)
    process.exit(1)
  }
  console.log(`kerneltune-skip: ${reason}`)
  console.log(`\n${runtime}: 0 passed, 0 failed, 1 skipped`)
  process.exit(0)
}

// Deno's own binary, not the npm wrapper (bin.cjs), which reports a death by a signal as exit 1:
// a native crash after the tests (glibc's heap checks abort) is then named as the signal it was.
const DENO = existsSync(join(ROOT, 'node_modules', 'deno', 'deno')) ? join(ROOT, 'node_modules', 'deno', 'deno') : 'deno'

// Bun loads the fast-check seed setup through --preload; Deno through the vitest shim.
const PRELOAD = join(ROOT, 'tooling', 'test-shim', 'fast-check-setup.ts')
const tooling = { dir: join(ROOT, 'tooling'), rel: 'tooling', pkg: readPackage(join(ROOT, 'tooling')) }

let passed = 0
let failed = 0
let skipped = 0
const failures = []
for (const { dir, rel, pkg } of [...libraryPackages(), tooling]) {
  const runtimes = pkg.kerneltune?.runtimes ?? ['node']
  const testDir = pkg.kerneltune?.testDir ?? 'src'
  const src = join(dir, testDir)
  if (only.length && !only.includes(rel)) continue
  if (!runtimes.includes(runtime) || !existsSync(src) || !hasTests(src)) continue
  console.log(`\n=== ${runtime}: ${rel}`)
  const result =
    runtime === 'bun'
      ? await run('bun', ['test', '--timeout', '60000', '--preload', PRELOAD, `./${testDir}`], { cwd: dir })
      : await run(DENO, ['test', '-A', '--no-check', '--config', 'tooling/test-shim/deno.json', `${rel}/${testDir}`])
  const counts = runtime === 'bun' ? countBun(stripAnsi(result.text)) : countDeno(stripAnsi(result.text))
  passed += counts.passed
  failed += counts.failed
  skipped += counts.skipped
  // A runner that exits non-zero without reporting a failed test (a file that did not load)
  // still counts as one failure, so the total cannot read 0 failed while the stage fails.
  if (result.code !== 0) {
    failures.push(rel)
    if (counts.failed === 0) {
      failed += 1
      const how = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.code}`
      console.error(`${runtime}: ${rel}: ${runtime} ${how} although no test failed (a file that did not load, or a native crash after the tests): counted as 1 failure`)
    }
  }
}
console.log(`\n${runtime}: ${passed} passed, ${failed} failed, ${skipped} skipped`)
if (failures.length) {
  console.error(`${runtime}: failing packages: ${failures.join(', ')}`)
  process.exit(1)
}

