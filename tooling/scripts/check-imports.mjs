#!/usr/bin/env node
// Library packages must run unchanged on Node, Bun and Deno, so their source may not import
// `node:` modules (or Node built-ins by bare name). Runtime access belongs in the apps or in an
// adapter entry point: files under `src/adapters/` or named `*.node.ts`. Tests may use them.
// Tooling and benchmarks import packages by name, never by a relative path into their src/: the
// packages they need are the root package.json's devDependencies (not tooling's: every package
// has @kerneltune/tooling as a devDependency, so that would be a package cycle turbo refuses).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { builtinModules } from 'node:module'
import { importSpecifiers, sourceReach } from './import-rules.mjs'
import { libraryPackages, ROOT } from './lib.mjs'

const builtins = new Set(builtinModules)
const problems = []
function walk(dir) {
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry)
    if (statSync(p).isDirectory()) {
      if (entry !== 'adapters' && entry !== 'node_modules') walk(p)
      continue
    }
    if (!entry.endsWith('.ts') || entry.endsWith('.test.ts') || entry.endsWith('.node.ts') || entry.endsWith('.bench.ts')) continue
    const text = readFileSync(p, 'utf8')
    for (const spec of importSpecifiers(text)) {
      if (spec.startsWith('node:') || builtins.has(spec)) problems.push(`${relative(ROOT, p)}: imports ${spec}`)
    }
  }
}
for (const { dir } of libraryPackages()) walk(join(dir, 'src'))
if (problems.length) {
  console.error('Library source must not import Node built-ins (move the code to src/adapters/ or a *.node.ts file):')
  for (const p of problems) console.error(`  ${p}`)
  process.exit(1)
}
console.log('imports: library packages use no Node built-ins outside adapters')

// Tooling and benchmarks import packages by name (rules in import-rules.mjs).
const reach = []
function walkBelow(dir) {
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry)
    if (statSync(p).isDirectory()) {
      if (entry !== 'node_modules' && entry !== 'results') walkBelow(p)
      continue
    }
    if (!/\.(ts|mts|mjs|js)$/.test(entry)) continue
    const file = relative(ROOT, p).split('\\').join('/')
    for (const spec of importSpecifiers(readFileSync(p, 'utf8'))) {
      const problem = sourceReach(file, spec)
      if (problem) reach.push(problem)
    }
  }
}
for (const dir of ['tooling', 'bench']) walkBelow(join(ROOT, dir))
if (reach.length) {
  console.error('Tooling and benchmarks must import packages by name, not by a relative path into their src/:')
  for (const p of reach) console.error(`  ${p}`)
  process.exit(1)
}
console.log('imports: tooling and bench import packages by name')
