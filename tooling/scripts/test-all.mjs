#!/usr/bin/env node
// The whole test suite, as `npm test` and CI run it: the import rule, one type check over the
// whole workspace (one program: far faster than a tsc per package), every
// package's vitest suite on Node (through turbo), then the library packages under Bun and Deno.
// It ends with one line that adds up what the runners reported: `total: N passed, N failed`.
import { run, stripAnsi } from './lib.mjs'

const stages = [
  { name: 'imports', cmd: 'node', args: ['tooling/scripts/check-imports.mjs'] },
  { name: 'typecheck', cmd: 'tsc', args: ['-p', 'tsconfig.json'] },
  { name: 'node', cmd: 'turbo', args: ['run', 'test', '--concurrency=2', '--continue'], count: 'vitest' },
  { name: 'bun', cmd: 'node', args: ['tooling/scripts/run-runtime-tests.mjs', 'bun'], count: 'summary' },
  { name: 'deno', cmd: 'node', args: ['tooling/scripts/run-runtime-tests.mjs', 'deno'], count: 'summary' },
]

const only = process.argv.slice(2)
let passed = 0
let failed = 0
const failedStages = []
const started = Date.now()
for (const stage of stages) {
  if (only.length && !only.includes(stage.name)) continue
  console.log(`\n##### ${stage.name}`)
  const t0 = Date.now()
  const { code, text } = await run(stage.cmd, stage.args)
  const plain = stripAnsi(text)
  if (stage.count === 'vitest') {
    for (const m of plain.matchAll(/Tests\s+(?:(\d+) failed\s*\|\s*)?(?:(\d+) passed)?/g)) {
      failed += Number(m[1] ?? 0)
      passed += Number(m[2] ?? 0)
    }
  } else if (stage.count === 'summary') {
    const m = /: (\d+) passed, (\d+) failed/.exec(plain)
    if (m) {
      passed += Number(m[1])
      failed += Number(m[2])
    }
  }
  console.log(`##### ${stage.name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  if (code !== 0) failedStages.push(stage.name)
}
console.log(`\nstages failed: ${failedStages.length ? failedStages.join(', ') : 'none'}; ${((Date.now() - started) / 1000).toFixed(0)} s in all`)
console.log(`total: ${passed} passed, ${failed} failed`)
process.exit(failedStages.length ? 1 : 0)
