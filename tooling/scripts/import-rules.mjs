// Tooling and benchmarks stand below the packages: they use a package the way its users do,
// through its name and exports (`@kerneltune/regressor`, `@kerneltune/gguf/node`), never by a
// relative path into its src/, which would bypass the exports map and let internals leak in.
import { posix } from 'node:path'

// Which folders may not reach into which packages' sources. bench/ may still read the apps'
// internals (the distributed-queue benchmark drives the server's queue) and packages' scripts/.
const RULES = [
  { from: 'tooling/', into: /^(packages|apps)\/([^/]+)\/src\// },
  { from: 'bench/', into: /^packages\/([^/]+)\/src\// },
]

/**
 * The problem with one import, or undefined. `file` is the importing file and the result of
 * resolving `spec` from it is compared, both relative to the repository root with `/` separators.
 */
export function sourceReach(file, spec) {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return undefined
  const rule = RULES.find((r) => file.startsWith(r.from))
  if (!rule) return undefined
  const target = posix.normalize(posix.join(posix.dirname(file), spec))
  const m = rule.into.exec(target)
  if (!m) return undefined
  const name = m[m.length - 1]
  return `${file}: imports ${spec}; import @kerneltune/${name} (or one of its exports) by name`
}

/** Every import specifier of a source text: static, re-export and dynamic. */
export function importSpecifiers(text) {
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2])
}
