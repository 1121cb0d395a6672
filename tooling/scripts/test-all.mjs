#!/usr/bin/env node
// The whole test suite, as `npm test` and CI run it: the import rule, one type check over the
// whole workspace (one program: far faster than a tsc per package), every package's vitest suite
// on Node (through turbo), then the library packages under Bun and Deno. It ends with the reasons
// for every skip the suites printed (kerneltune-skip: ..., from @kerneltune/tooling/test-skip)
// and one line that adds up what the runners reported: `total: N passed, N failed, N skipped`.
import { run, stripAnsi } from './lib.mjs'
import { countRuntimeSummary, countVitest, formatSummary, skipReasons } from './test-summary.mjs'

const stages = [
  { name: 'imports', cmd: 'node', args: ['tooling/scripts/check-imports.mjs'] },
  { name: 'typecheck', cmd: 'tsc', args: ['-p', 'tsconfig.json'] },
  { name: 'node', cmd: 'turbo', args: ['run', 'test', '--concurrency=2', '--continue'], count: countVitest },
  { name: 'bun', cmd: 'node', args: ['tooling/scripts/run-runtime-tests.mjs', 'bun'], count: countRuntimeSummary },
  { name: 'deno', cmd: 'node', args: ['tooling/scripts/run-runtime-tests.mjs', 'deno'], count: countRuntimeSummary },
  // Last: packs, installs and imports every public package outside the workspace (docs/releasing.md).
  { name: 'release', cmd: 'node', args: ['tooling/scripts/release-check.mjs'] },
]

// One fast-check seed for every stage: with KERNELTUNE_FC_SEED=random, pick it here so the whole
// run (and its replay) uses the same one; unset, the setup files use the fixed default.
if (process.env.KERNELTUNE_FC_SEED?.trim() === 'random') {
  process.env.KERNELTUNE_FC_SEED = String(Math.floor(Math.random() * 0x7fffffff))
}
const seedNote = process.env.KERNELTUNE_FC_SEED
  ? `fast-check seed ${process.env.KERNELTUNE_FC_SEED} (replay with KERNELTUNE_FC_SEED=${process.env.KERNELTUNE_FC_SEED})`
  : 'fast-check seed: the fixed default (KERNELTUNE_FC_SEED=random for a fresh one, printed here)'
console.log(seedNote)

const only = process.argv.slice(2)
const total = { passed: 0, failed: 0, skipped: 0 }
const reasonsByStage = new Map()
const failedStages = []
const started = Date.now()
for (const stage of stages) {
  if (only.length && !only.includes(stage.name)) continue
  console.log(`\n##### ${stage.name}`)
  const t0 = Date.now()
  const { code, text } = await run(stage.cmd, stage.args)
  const plain = stripAnsi(text)
  const c = stage.count ? stage.count(plain) : { passed: 0, failed: 0, skipped: 0 }
  total.passed += c.passed
  // A stage that fails without a failed test (the import rule, the type check, a file that did
  // not load) counts as one failure, so the total never reads 0 failed for a failing run.
  total.failed += code !== 0 && c.failed === 0 ? 1 : c.failed
  total.skipped += c.skipped
  reasonsByStage.set(stage.name, skipReasons(plain))
  console.log(`##### ${stage.name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  if (code !== 0) failedStages.push(stage.name)
}
console.log(`\nstages failed: ${failedStages.length ? failedStages.join(', ') : 'none'}; ${((Date.now() - started) / 1000).toFixed(0)} s in all`)
if (failedStages.length) console.log(seedNote)
for (const line of formatSummary(total, reasonsByStage)) console.log(line)
process.exit(failedStages.length ? 1 : 0)
