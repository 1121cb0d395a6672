#!/usr/bin/env node
// Library packages must run unchanged on Node, Bun and Deno, so their source may not import
// `node:` modules (or Node built-ins by bare name). Runtime access belongs in the apps or in an
// adapter entry point: files under `src/adapters/` or named `*.node.ts`. Tests may use them.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { builtinModules } from 'node:module'
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
if (problems.length) {
  console.error('Library source must not import Node built-ins (move the code to src/adapters/ or a *.node.ts file):')
  for (const p of problems) console.error(`  ${p}`)
  process.exit(1)
}
console.log('imports: library packages use no Node built-ins outside adapters')
