#!/usr/bin/env node
// What `npm test` and `npm run demo` call from a fresh clone that has only Node and npm:
// find or fetch pnpm (the pinned version), install the workspace, then run the task.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './lib.mjs'

const PNPM_VERSION = '10.34.9'
const task = process.argv[2]
// `install` only installs (.ci/run needs node_modules before it builds llama-server).
const tasks = { test: ['run', 'test:all'], demo: ['kerneltune', 'demo'], install: [] }
if (!(task in tasks)) {
  console.error(`usage: bootstrap.mjs ${Object.keys(tasks).join('|')}`)
  process.exit(2)
}

function pnpmCommand() {
  try {
    const v = execFileSync('pnpm', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    if (v === PNPM_VERSION) return ['pnpm', []]
  } catch {
    // not installed: fall through to npx
  }
  // npx fetches the pinned pnpm from the npm registry into its cache; no global install needed.
  return ['npx', ['--yes', `pnpm@${PNPM_VERSION}`]]
}

const [cmd, prefix] = pnpmCommand()
// The demo reports its wall time from here, with the install check as a phase of its own
// (issue 23 item 7): performance.timeOrigin is this process's start. Only the demo gets it: under
// `npm test` every demo the tests start would otherwise count from the test run's start.
const demo = task === 'demo'
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', ...(demo ? { KERNELTUNE_BOOTSTRAP_STARTED_AT: String(performance.timeOrigin) } : {}) }
const step = (args) => {
  const r = spawnSync(cmd, [...prefix, ...args], { cwd: ROOT, stdio: 'inherit', env })
  if (r.status !== 0) process.exit(r.status ?? 1)
}
const frozen = existsSync(join(ROOT, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : []
step(['install', ...frozen, '--reporter=append-only'])
if (demo) env.KERNELTUNE_BOOTSTRAP_INSTALL_MS = String(Date.now() - performance.timeOrigin)
if (tasks[task].length) step([...tasks[task], ...process.argv.slice(3)])
