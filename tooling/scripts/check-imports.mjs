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

/** Calls `visit(path, specifiers)` for each file below `dir` that `wanted(name)` accepts, skipping folders in `skip`. */
function eachFile(dir, skip, wanted, visit) {
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry)
    if (statSync(p).isDirectory()) {
      if (!skip.includes(entry)) eachFile(p, skip, wanted, visit)
    } else if (wanted(entry)) visit(p, importSpecifiers(readFileSync(p, 'utf8')))
  }
}

const problems = []
const librarySource = (entry) => entry.endsWith('.ts') && !/\.(test|node|bench)\.ts$/.test(entry)
for (const { dir } of libraryPackages()) {
  eachFile(join(dir, 'src'), ['adapters', 'node_modules'], librarySource, (p, specs) => {
    for (const spec of specs) if (spec.startsWith('node:') || builtins.has(spec)) problems.push(`${relative(ROOT, p)}: imports ${spec}`)
  })
}
if (problems.length) {
  console.error('Library source must not import Node built-ins (move the code to src/adapters/ or a *.node.ts file):')
  for (const p of problems) console.error(`  ${p}`)
  process.exit(1)
}
console.log('imports: library packages use no Node built-ins outside adapters')

// Tooling and benchmarks import packages by name (rules in import-rules.mjs).
const reach = []
for (const dir of ['tooling', 'bench']) {
  eachFile(join(ROOT, dir), ['node_modules', 'results'], (entry) => /\.(ts|mts|mjs|js)$/.test(entry), (p, specs) => {
    const file = relative(ROOT, p).split('\\').join('/')
    for (const spec of specs) {
      const problem = sourceReach(file, spec)
      if (problem) reach.push(problem)
    }
  })
}
if (reach.length) {
  console.error('Tooling and benchmarks must import packages by name, not by a relative path into their src/:')
  for (const p of reach) console.error(`  ${p}`)
  process.exit(1)
}
console.log('imports: tooling and bench import packages by name')
