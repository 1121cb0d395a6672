#!/usr/bin/env node
// The import rules, the first stage of `npm test`:
// 1. Library packages must run unchanged on Node, Bun and Deno, so their source may not import
//    `node:` modules (or Node built-ins by bare name). Runtime access belongs in the apps or in an
//    adapter entry point: files under `src/adapters/` or named `*.node.ts`. Tests may use them.
// 2. Tooling and benchmarks import packages by name, never by a relative path into their src/: the
//    packages they need are the root package.json's devDependencies (not tooling's: every package
//    has @kerneltune/tooling as a devDependency, so that would be a package cycle turbo refuses).
// 3. No import cycle among the repository's .ts/.tsx/.mjs files (import-graph.mjs says which
//    edges count: type-only and dynamic imports included).
// 4. Every file imports only from its floor or below (tooling/floors.json, drawn in README.md's
//    Architecture section), and no engines-* package imports another.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { builtinModules } from 'node:module'
import { checkRepository } from './import-graph.mjs'
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

let failed = false
const report = (title, list) => {
  if (!list.length) return
  failed = true
  console.error(title)
  for (const p of list) console.error(`  ${p}`)
}
report('Library source must not import Node built-ins (move the code to src/adapters/ or a *.node.ts file):', problems)
report('Tooling and benchmarks must import packages by name, not by a relative path into their src/:', reach)
const table = JSON.parse(readFileSync(join(ROOT, 'tooling', 'floors.json'), 'utf8'))
const graph = checkRepository(ROOT, { table, readme: readFileSync(join(ROOT, 'README.md'), 'utf8') })
report('Import cycles (move what both sides share into a third module):', graph.cycles)
report('Imports above the importer\'s floor (tooling/floors.json; README.md, Architecture):', graph.floors)
report('An engine imports another engine (look it up through the registry\'s contracts instead):', graph.engines)
if (failed) process.exit(1)
console.log(`imports: library packages use no Node built-ins outside adapters; tooling and bench import packages by name; ${graph.files} files, no import cycle, every import on its floor or below, no engine imports another`)
