#!/usr/bin/env node
// Runs the library packages' tests under Bun or Deno (Node runs them through vitest and turbo).
// A package lists the runtimes it supports in package.json `kerneltune.runtimes`; one that
// leaves a runtime out says why in `kerneltune.runtimeNotes`.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { libraryPackages, run, stripAnsi } from './lib.mjs'

const runtime = process.argv[2]
if (runtime !== 'bun' && runtime !== 'deno') {
  console.error('usage: run-runtime-tests.mjs bun|deno')
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

let passed = 0
let failed = 0
let failures = []
for (const { dir, rel, pkg } of libraryPackages()) {
  const runtimes = pkg.kerneltune?.runtimes ?? ['node']
  const src = join(dir, 'src')
  if (!runtimes.includes(runtime) || !existsSync(src) || !hasTests(src)) continue
  console.log(`\n=== ${runtime}: ${rel}`)
  const result =
    runtime === 'bun'
      ? await run('bun', ['test', '--timeout', '60000', './src'], { cwd: dir })
      : await run('deno', ['test', '-A', '--no-check', '--config', 'tooling/test-shim/deno.json', `${rel}/src`])
  const text = stripAnsi(result.text)
  if (runtime === 'bun') {
    passed += Number(/^\s*(\d+) pass$/m.exec(text)?.[1] ?? 0)
    failed += Number(/^\s*(\d+) fail$/m.exec(text)?.[1] ?? 0)
  } else {
    const m = /(?:ok|FAILED) \| (\d+) passed(?: \((\d+) steps\))? \| (\d+) failed(?: \((\d+) steps\))?/.exec(text)
    if (m) {
      passed += Number(m[2] ?? m[1])
      failed += Number(m[4] ?? m[3])
    }
  }
  if (result.code !== 0) failures.push(rel)
}
console.log(`\n${runtime}: ${passed} passed, ${failed} failed`)
if (failures.length) {
  console.error(`${runtime}: failing packages: ${failures.join(', ')}`)
  process.exit(1)
}
