#!/usr/bin/env node
// Runs benchmark scripts under bench/ (all, or those named): each measures and writes JSON to
// bench/results/<name>.json. Usage: pnpm bench [name ...]
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, run } from './lib.mjs'

const wanted = process.argv.slice(2)
const scripts = readdirSync(join(ROOT, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.bench\.ts$/, '')))
if (scripts.length === 0) {
  console.error(`no benchmark matches ${wanted.join(', ') || '(any)'}; available: ${readdirSync(join(ROOT, 'bench')).filter((f) => f.endsWith('.bench.ts')).join(', ')}`)
  process.exit(2)
}
let failed = 0
for (const s of scripts) {
  console.log(`\n=== bench/${s}`)
  // A script whose head says `@bench-runtime deno` needs Deno (WebGPU); the rest run on Node.
  const deno = readFileSync(join(ROOT, 'bench', s), 'utf8').slice(0, 300).includes('@bench-runtime deno')
  const { code } = deno
    ? await run('deno', ['run', '-A', join('bench', s)])
    : await run('tsx', ['--conditions=@kerneltune/source', join('bench', s)])
  if (code !== 0) failed++
}
process.exit(failed ? 1 : 0)
