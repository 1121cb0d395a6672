// The static import graph of the repository's own source, its cycles and its floors.
//
// Edges: every `import ... from`, `export ... from`, side-effect `import '...'` and literal
// `import('...')`, resolved when relative or when naming a workspace package (`@kerneltune/*`,
// through its package.json `exports` and the `@kerneltune/source` condition). Third-party and
// `node:` modules are not part of the graph.
//
// Type-only imports (`import type`, `export type ... from`) count like the others, in the cycle
// search and in the floors. TypeScript erases them, so such a cycle cannot leave a module
// half-initialised at run time, but it still ties two modules into one unit that cannot be read,
// tested or moved apart: three of the four cycles issue 24 found ran through type imports, and
// each had a natural third module for the shared type. A package that needs a higher floor's
// types depends on that floor all the same. Dynamic imports count too: a cycle broken only by
// turning one edge into `import()` is still a cycle.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs'
import { join, relative, dirname, resolve, sep } from 'node:path'

const SOURCE_EXT = ['.ts', '.tsx', '.mjs']
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage', '.turbo', 'fixtures'])

/** Every .ts/.tsx/.mjs file under the given directories (no node_modules, dist or fixtures). */
export function sourceFiles(root, dirs) {
  const out = []
  const walk = (dir) => {
    for (const entry of readdirSync(dir)) {
      const p = join(dir, entry)
      if (statSync(p).isDirectory()) {
        if (!SKIP_DIRS.has(entry) && !entry.startsWith('.')) walk(p)
      } else if (SOURCE_EXT.some((e) => entry.endsWith(e)) && !entry.endsWith('.d.ts')) out.push(p)
    }
  }
  for (const d of dirs) if (existsSync(join(root, d))) walk(join(root, d))
  return out.sort()
}

/** Removes comments (keeping string literals, so `'//'` in a URL survives). */
function stripComments(text) {
  return text.replace(/("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (m, str) => str ?? '')
}

/** The module specifiers a file imports, each with whether the import is type-only. */
export function parseImports(text) {
  const code = stripComments(text)
  const found = []
  const re = /(?:^|[;\n}])\s*(import|export)\s+(type\s+)?([^'"`;]*?)\s*from\s*['"]([^'"]+)['"]|(?:^|[;\n}])\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g
  for (const m of code.matchAll(re)) {
    if (m[4]) {
      // `import type { A }` and `export type { A } from` are erased; `import { type A }` is not
      // (verbatimModuleSyntax keeps it as `import {} from`, which still runs the module).
      found.push({ spec: m[4], typeOnly: Boolean(m[2]), dynamic: false })
    } else if (m[5]) found.push({ spec: m[5], typeOnly: false, dynamic: false })
    else if (m[6]) found.push({ spec: m[6], typeOnly: false, dynamic: true })
  }
  return found
}

/** Workspace packages by name: their directory and package.json, for `@kerneltune/*` imports. */
export function workspacePackages(root, dirs) {
  const byName = new Map()
  const add = (dir) => {
    const file = join(dir, 'package.json')
    if (!existsSync(file)) return
    const pkg = JSON.parse(readFileSync(file, 'utf8'))
    if (pkg.name) byName.set(pkg.name, { dir, pkg })
  }
  for (const d of dirs) {
    const abs = join(root, d)
    if (!existsSync(abs)) continue
    add(abs)
    for (const entry of readdirSync(abs)) if (statSync(join(abs, entry)).isDirectory()) add(join(abs, entry))
  }
  return byName
}

function exportTarget(entry) {
  if (typeof entry === 'string') return entry
  if (entry && typeof entry === 'object') {
    for (const key of ['@kerneltune/source', 'import', 'default']) {
      const t = exportTarget(entry[key])
      if (t) return t
    }
  }
  return undefined
}

function resolveFile(base) {
  const candidates = [base]
  const noJs = base.replace(/\.(m?js|jsx)$/, '')
  for (const e of SOURCE_EXT) candidates.push(noJs + e, join(base, 'index' + e))
  return candidates.find((c) => existsSync(c) && statSync(c).isFile())
}

/** Resolves one specifier from `from` to a repository file, or undefined when outside the graph. */
export function resolveSpec(spec, from, packages) {
  if (spec.startsWith('.')) return resolveFile(resolve(dirname(from), spec))
  const m = /^(@kerneltune\/[^/]+)(\/.*)?$/.exec(spec)
  if (!m) return undefined
  const ws = packages.get(m[1])
  if (!ws) return undefined
  const sub = '.' + (m[2] ?? '')
  const exp = ws.pkg.exports
  const entry = exp && (typeof exp === 'string' || exp['.'] === undefined && sub === '.' ? exp : exp[sub])
  const target = exportTarget(entry) ?? (sub === '.' ? ws.pkg.main : undefined)
  if (!target) return undefined
  return resolveFile(join(ws.dir, target))
}

/** The graph: file → [{ to, typeOnly, spec }], over every file found under `dirs`. */
export function buildGraph(root, dirs) {
  const packages = workspacePackages(root, dirs)
  const files = sourceFiles(root, dirs)
  const graph = new Map()
  for (const file of files) {
    const edges = []
    for (const imp of parseImports(readFileSync(file, 'utf8'))) {
      const to = resolveSpec(imp.spec, file, packages)
      if (to && to !== file) edges.push({ to, typeOnly: imp.typeOnly, spec: imp.spec })
    }
    graph.set(file, edges)
  }
  return { graph, packages }
}

/**
 * The import cycles: one per strongly connected component with more than one file, each shown as
 * one concrete loop through it (Tarjan, iterative).
 */
export function findCycles(graph) {
  const next = (f) => (graph.get(f) ?? []).filter((e) => graph.has(e.to)).map((e) => e.to)
  const index = new Map()
  const low = new Map()
  const onStack = new Set()
  const stack = []
  const components = []
  let counter = 0
  const visit = (v) => {
    index.set(v, counter)
    low.set(v, counter)
    counter++
    stack.push(v)
    onStack.add(v)
  }
  for (const start of graph.keys()) {
    if (index.has(start)) continue
    const work = [[start, 0]]
    visit(start)
    while (work.length) {
      const frame = work[work.length - 1]
      const [v] = frame
      const succ = next(v)
      if (frame[1] < succ.length) {
        const w = succ[frame[1]++]
        if (!index.has(w)) {
          visit(w)
          work.push([w, 0])
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
        continue
      }
      work.pop()
      if (work.length) {
        const parent = work[work.length - 1][0]
        low.set(parent, Math.min(low.get(parent), low.get(v)))
      }
      if (low.get(v) === index.get(v)) {
        const comp = stack.splice(stack.lastIndexOf(v))
        for (const w of comp) onStack.delete(w)
        if (comp.length > 1) components.push(comp)
      }
    }
  }
  // One loop per component: a shortest path back to its smallest file, within the component.
  return components.map((comp) => {
    const members = new Set(comp)
    const first = [...comp].sort()[0]
    const prev = new Map([[first, null]])
    const queue = [first]
    let end
    while (queue.length && end === undefined) {
      const v = queue.shift()
      for (const w of next(v)) {
        if (!members.has(w)) continue
        if (w === first) {
          end = v
          break
        }
        if (!prev.has(w)) {
          prev.set(w, v)
          queue.push(w)
        }
      }
    }
    const loop = []
    for (let v = end; v !== null; v = prev.get(v)) loop.unshift(v)
    return { files: comp.sort(), loop: [...loop, first] }
  })
}

/** Which floor a file belongs to: the longest `paths` prefix in the floor table that matches. */
export function floorOf(relPath, floors) {
  let best
  floors.forEach((floor, level) => {
    for (const p of floor.paths) {
      const prefix = p.endsWith('/') ? p : p + '/'
      if ((relPath === p || relPath.startsWith(prefix)) && (!best || p.length > best.path.length)) best = { level, floor, path: p }
    }
  })
  return best
}

/** Tests, benchmarks and test configs: they may wire a package with those above it. */
export const isTestFile = (rel) => /\.(test|spec|bench)\.[cm]?[jt]sx?$/.test(rel) || /(^|\/)vitest\.config\.[cm]?[jt]s$/.test(rel) || /(^|\/)(test|tests|__tests__)\//.test(rel)

const under = (r, p) => r === p || r.startsWith(p.endsWith('/') ? p : p + '/')

/**
 * Edges that go up the floors: a non-test file importing a file on a higher floor. Files that no
 * floor lists are reported too, so a new package has to be placed in the table. The shared test
 * infrastructure (`devOnly`: the vitest preset and test shim) is outside the floors.
 */
export function floorViolations(root, graph, table) {
  const problems = []
  const unplaced = new Set()
  const rel = (f) => relative(root, f).split(sep).join('/')
  const devOnly = (r) => (table.devOnly?.paths ?? []).some((p) => under(r, p))
  for (const [file, edges] of graph) {
    const from = rel(file)
    if (devOnly(from) || isTestFile(from)) continue
    const ff = floorOf(from, table.floors)
    if (!ff) {
      unplaced.add(from.split('/').slice(0, 2).join('/'))
      continue
    }
    for (const e of edges) {
      const to = rel(e.to)
      if (devOnly(to)) continue
      const tf = floorOf(to, table.floors)
      if (!tf) {
        unplaced.add(to.split('/').slice(0, 2).join('/'))
        continue
      }
      if (tf.level > ff.level) problems.push(`${from} (${ff.floor.name}) imports ${e.spec} (${tf.floor.name})`)
    }
  }
  for (const u of [...unplaced].sort()) problems.push(`${u}: not on any floor of tooling/floors.json`)
  return problems
}

/** The floor table's own problems: a path on two floors, or a listed path that does not exist. */
export function floorTableProblems(root, table) {
  const problems = []
  const seen = new Map()
  for (const floor of table.floors) {
    for (const p of floor.paths) {
      if (seen.has(p)) problems.push(`tooling/floors.json: ${p} is on both ${seen.get(p)} and ${floor.name}`)
      seen.set(p, floor.name)
    }
  }
  // A floor may list a location that does not exist yet (the composition root's two homes), but
  // not one whose every path is gone: that floor would be drawn in the README and hold nothing.
  for (const floor of table.floors) if (!floor.paths.some((p) => existsSync(join(root, p)))) problems.push(`tooling/floors.json: no path of floor ${floor.name} exists`)
  return problems
}

/** README.md's Architecture section must name every floor, bottom floor last (drawn top-down). */
export function readmeFloorProblems(readme, table) {
  const section = /^## Architecture\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1]
  if (!section) return ['README.md: no "## Architecture" section (it mirrors tooling/floors.json)']
  const problems = []
  let last = Infinity
  for (const floor of table.floors) {
    const at = section.indexOf(floor.name)
    if (at < 0) problems.push(`README.md Architecture: floor "${floor.name}" of tooling/floors.json is not drawn`)
    else if (at > last) problems.push(`README.md Architecture: floor "${floor.name}" is drawn below a lower floor (draw them top-down, as tooling/floors.json lists them bottom-up)`)
    else last = at
  }
  return problems
}

/**
 * An `engines-*` package imports no other `engines-*` package: engines reach each other only
 * through the registry's contracts (a third-party engine could not be imported by name).
 */
export function engineCrossImports(root, graph) {
  const problems = []
  const rel = (f) => relative(root, f).split(sep).join('/')
  const engineOf = (f) => /^packages\/(engines-[^/]+)\//.exec(rel(f))?.[1]
  for (const [file, edges] of graph) {
    const from = engineOf(file)
    // Tests may pair real engines (Triton's tests check its vllm and tensorrtllm backends).
    if (!from || isTestFile(rel(file))) continue
    for (const e of edges) {
      const to = engineOf(e.to)
      if (to && to !== from) problems.push(`${relative(root, file)} imports ${e.spec} (${to})`)
    }
  }
  return problems
}

/** The folders whose files make up the graph. */
export const GRAPH_DIRS = ['packages', 'apps', 'tooling', 'bench', 'examples']

/** Every graph rule over one repository: cycles, floors (and the README's drawing), engines. */
export function checkRepository(root, { table, readme, dirs = GRAPH_DIRS } = {}) {
  const { graph } = buildGraph(root, dirs)
  const rel = (f) => relative(root, f).split(sep).join('/')
  const cycles = findCycles(graph).map((c) => {
    const others = c.files.filter((f) => !c.loop.includes(f)).map(rel)
    return `${c.loop.map(rel).join(' -> ')}${others.length ? ` (the same knot also holds ${others.join(', ')})` : ''}`
  })
  const floors = table ? [...floorTableProblems(root, table), ...floorViolations(root, graph, table), ...(readme === undefined ? [] : readmeFloorProblems(readme, table))] : []
  return { files: graph.size, cycles, floors, engines: engineCrossImports(root, graph) }
}
