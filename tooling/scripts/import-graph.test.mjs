import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkRepository, parseImports, readmeFloorProblems } from './import-graph.mjs'
import { ROOT } from './lib.mjs'

const made = []
afterAll(() => { for (const d of made) rmSync(d, { recursive: true, force: true }) })

/** A throw-away repository: path → file text (objects become package.json). */
function repo(files) {
  const root = mkdtempSync(join(tmpdir(), 'kt-graph-'))
  made.push(root)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), typeof text === 'string' ? text : JSON.stringify(text))
  }
  return root
}

const pkg = (name, exports = { '.': { '@kerneltune/source': './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' } }) => ({ name, type: 'module', exports })
const TABLE = {
  floors: [
    { name: 'bottom', paths: ['packages/core'] },
    { name: 'middle', paths: ['packages/engines-a', 'packages/engines-b', 'packages/lib'] },
    { name: 'top', paths: ['apps/app'] },
  ],
  devOnly: { paths: ['tooling/test-shim'] },
}

describe('parseImports', () => {
  it('should find static, re-export, side-effect and dynamic imports, and mark only `import type` / `export type` as type-only', () => {
    const found = parseImports([
      "import { a } from './a.ts'",
      "import type { B } from './b.ts'",
      "import { type C } from './c.ts'",
      "export { d } from './d.ts'",
      "export type { E } from './e.ts'",
      "import './f.ts'",
      "const g = await import('./g.ts')",
      "// import { h } from './h.ts'",
      "/* import { i } from './i.ts' */",
      "const url = 'http://example.com/x' // import j from './j.ts'",
      'import {\n  k,\n  l,\n} from "./k.ts"',
    ].join('\n'))
    expect(found.map((f) => [f.spec, f.typeOnly])).toEqual([
      ['./a.ts', false], ['./b.ts', true], ['./c.ts', false], ['./d.ts', false], ['./e.ts', true], ['./f.ts', false], ['./g.ts', false], ['./k.ts', false],
    ])
  })
})

describe('import cycles', () => {
  it('should pass a tree without a cycle', () => {
    const root = repo({
      'packages/core/package.json': pkg('@kerneltune/core'),
      'packages/core/src/index.ts': "export { x } from './x.ts'\n",
      'packages/core/src/x.ts': "import { y } from './y.ts'\nexport const x = y\n",
      'packages/core/src/y.ts': 'export const y = 1\n',
    })
    expect(checkRepository(root).cycles).toEqual([])
  })

  it('should fail a cycle between two files, a type-only one included, naming the loop', () => {
    const root = repo({
      'packages/core/package.json': pkg('@kerneltune/core'),
      'packages/core/src/index.ts': "export { x } from './x.ts'\n",
      'packages/core/src/x.ts': "import { y } from './y.ts'\nexport const x = y\nexport interface T { n: number }\n",
      'packages/core/src/y.ts': "import type { T } from './x.ts'\nexport const y: T = { n: 1 }\n",
    })
    expect(checkRepository(root).cycles).toEqual(['packages/core/src/x.ts -> packages/core/src/y.ts -> packages/core/src/x.ts'])
  })

  it('should fail a cycle that crosses packages through their exports and the @kerneltune/source condition, or closes through import()', () => {
    const root = repo({
      'packages/p1/package.json': pkg('@kerneltune/p1'),
      'packages/p1/src/index.ts': "import { b } from '@kerneltune/p2/sub'\nexport const a = () => b\n",
      'packages/p2/package.json': pkg('@kerneltune/p2', { './sub': { '@kerneltune/source': './src/sub.ts', import: './dist/sub.js' } }),
      'packages/p2/src/sub.ts': "export const b = async () => (await import('@kerneltune/p1')).a\n",
      'tooling/scripts/one.mjs': "import { two } from './two.mjs'\nexport const one = 1\n",
      'tooling/scripts/two.mjs': "import { one } from './one.mjs'\nexport const two = one\n",
    })
    expect(checkRepository(root).cycles).toEqual([
      'packages/p1/src/index.ts -> packages/p2/src/sub.ts -> packages/p1/src/index.ts',
      'tooling/scripts/one.mjs -> tooling/scripts/two.mjs -> tooling/scripts/one.mjs',
    ])
  })

  it('should leave third-party and node: imports and unresolvable specifiers out of the graph', () => {
    const root = repo({
      'apps/app/package.json': { name: 'app' },
      'apps/app/src/main.ts': "import { z } from 'zod'\nimport { readFileSync } from 'node:fs'\nimport { nope } from '@kerneltune/missing'\n",
    })
    expect(checkRepository(root)).toMatchObject({ files: 1, cycles: [] })
  })
})

describe('floors and engines', () => {
  const tree = (extra) => repo({
    'packages/core/package.json': pkg('@kerneltune/core'),
    'packages/core/src/index.ts': 'export const core = 1\n',
    'packages/lib/package.json': pkg('@kerneltune/lib'),
    'packages/lib/src/index.ts': "import { core } from '@kerneltune/core'\nexport const lib = core\n",
    'packages/engines-a/package.json': pkg('@kerneltune/engines-a'),
    'packages/engines-a/src/index.ts': "import { lib } from '@kerneltune/lib'\nexport const a = lib\n",
    'packages/engines-b/package.json': pkg('@kerneltune/engines-b'),
    'packages/engines-b/src/index.ts': 'export const b = 2\n',
    'apps/app/package.json': { name: 'app' },
    'apps/app/src/main.ts': "import { a } from '@kerneltune/engines-a'\nimport { lib } from '../../../packages/lib/src/index.ts'\nexport const main = [a, lib]\n",
    // Split so check-imports' own scan of this file (tooling imports packages by name) does not read it as an import.
    'tooling/test-shim/shim.ts': "import { main } from " + "'../../apps/app/src/main.ts'\nexport const shim = main\n",
    ...extra,
  })

  it('should pass imports from the same floor or below, and the test infrastructure from anywhere', () => {
    const root = tree({ 'packages/core/src/index.test.ts': "import { shim } from '../../../tooling/test-shim/shim.ts'\n" })
    expect(checkRepository(root, { table: TABLE })).toMatchObject({ cycles: [], floors: [], engines: [] })
  })

  it('should fail an import from a higher floor in shipped source, but not in a test', () => {
    const root = tree({
      'packages/lib/src/up.ts': "import type { main } from '../../../apps/app/src/main.ts'\nexport type M = typeof main\n",
      'packages/core/src/wire.test.ts': "import { a } from '@kerneltune/engines-a'\n",
    })
    expect(checkRepository(root, { table: TABLE }).floors).toEqual(['packages/lib/src/up.ts (middle) imports ../../../apps/app/src/main.ts (top)'])
  })

  it('should report a package that is on no floor', () => {
    const root = tree({ 'packages/newbie/package.json': pkg('@kerneltune/newbie'), 'packages/newbie/src/index.ts': "import { core } from '@kerneltune/core'\n" })
    expect(checkRepository(root, { table: TABLE }).floors).toEqual(['packages/newbie: not on any floor of tooling/floors.json'])
  })

  it('should fail an engine that imports another engine, except from its tests', () => {
    const root = tree({
      'packages/engines-a/src/peer.ts': "import { b } from '@kerneltune/engines-b'\nexport const peer = b\n",
      'packages/engines-a/src/peer.test.ts': "import { b } from '@kerneltune/engines-b'\n",
    })
    expect(checkRepository(root, { table: TABLE }).engines).toEqual(['packages/engines-a/src/peer.ts imports @kerneltune/engines-b (engines-b)'])
  })

  it("should check that the README's Architecture section draws every floor, top-down", () => {
    expect(readmeFloorProblems('## Architecture\ntop\nmiddle\nbottom\n## Next\n', TABLE)).toEqual([])
    expect(readmeFloorProblems('## Architecture\ntop\nbottom\n## Next\n', TABLE)).toEqual(['README.md Architecture: floor "middle" of tooling/floors.json is not drawn'])
    expect(readmeFloorProblems('## Architecture\nbottom\nmiddle\ntop\n## Next\n', TABLE)).toHaveLength(2)
    expect(readmeFloorProblems('# kerneltune\n## Packages\n', TABLE)).toEqual(['README.md: no "## Architecture" section (it mirrors tooling/floors.json)'])
  })
})

describe('the repository itself', () => {
  it('should have no import cycle, no import above its floor and no engine importing another', () => {
    const table = JSON.parse(readFileSync(join(ROOT, 'tooling', 'floors.json'), 'utf8'))
    const result = checkRepository(ROOT, { table, readme: readFileSync(join(ROOT, 'README.md'), 'utf8') })
    expect(result.files).toBeGreaterThan(500)
    expect(result).toMatchObject({ cycles: [], floors: [], engines: [] })
  })
})
