#!/usr/bin/env node
// The import rules, the first stage of `npm test`:
// 1. Library packages must run unchanged on Node, Bun and Deno, so their source may not import
//    `node:` modules (or Node built-ins by bare name). Runtime access belongs in the apps or in an
//    adapter entry point: files under `src/adapters/` or named `*.node.ts`. Tests may use them.
// 2. No import cycle among the repository's .ts/.tsx/.mjs files (import-graph.mjs says which
//    edges count: type-only and dynamic imports included).
// 3. Every file imports only from its floor or below (tooling/floors.json, drawn in README.md's
//    Architecture section), and no engines-* package imports another.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { builtinModules } from 'node:module'
import { checkRepository } from './import-graph.mjs'
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
    for (const m of text.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      const spec = m[1] ?? m[2]
      if (spec.startsWith('node:') || builtins.has(spec)) problems.push(`${relative(ROOT, p)}: imports ${spec}`)
    }
  }
}
for (const { dir } of libraryPackages()) walk(join(dir, 'src'))
let failed = false
const report = (title, list) => {
  if (!list.length) return
  failed = true
  console.error(title)
  for (const p of list) console.error(`  ${p}`)
}
report('Library source must not import Node built-ins (move the code to src/adapters/ or a *.node.ts file):', problems)
const table = JSON.parse(readFileSync(join(ROOT, 'tooling', 'floors.json'), 'utf8'))
const graph = checkRepository(ROOT, { table, readme: readFileSync(join(ROOT, 'README.md'), 'utf8') })
report('Import cycles (move what both sides share into a third module):', graph.cycles)
report('Imports above the importer\'s floor (tooling/floors.json; README.md, Architecture):', graph.floors)
report('An engine imports another engine (look it up through the registry\'s contracts instead):', graph.engines)
if (failed) process.exit(1)
console.log(`imports: library packages use no Node built-ins outside adapters; ${graph.files} files, no import cycle, every import on its floor or below, no engine imports another`)
