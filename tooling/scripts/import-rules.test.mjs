import { describe, expect, it } from 'vitest'
import { importSpecifiers, sourceReach } from './import-rules.mjs'

describe('sourceReach', () => {
  it('should reject a relative import from tooling into any package or app source', () => {
    expect(sourceReach('tooling/scripts/x.ts', '../../packages/regressor/src/index.ts')).toMatch(/@kerneltune\/regressor/)
    expect(sourceReach('tooling/scripts/x.ts', '../../apps/server/src/app.ts')).toMatch(/@kerneltune\/server/)
  })

  it('should reject a relative import from bench into a package source, at any depth', () => {
    expect(sourceReach('bench/a.bench.ts', '../packages/gguf/src/node.ts')).toMatch(/@kerneltune\/gguf/)
    expect(sourceReach('bench/support/b.ts', '../../packages/stats/src/index.ts')).toMatch(/@kerneltune\/stats/)
  })

  it('should allow names, imports within the folder, package scripts and (from bench) app internals', () => {
    expect(sourceReach('tooling/scripts/x.ts', '@kerneltune/regressor')).toBeUndefined()
    expect(sourceReach('tooling/scripts/x.ts', './predict-vs-measure-table.ts')).toBeUndefined()
    expect(sourceReach('bench/a.bench.ts', './support/load.ts')).toBeUndefined()
    expect(sourceReach('bench/a.bench.ts', '../packages/regressor/scripts/data-rows.ts')).toBeUndefined()
    expect(sourceReach('bench/a.bench.ts', '../apps/server/src/app.ts')).toBeUndefined()
    expect(sourceReach('packages/core/src/a.ts', '../../stats/src/index.ts')).toBeUndefined()
  })
})

describe('importSpecifiers', () => {
  it('should find static, type, re-export and dynamic imports', () => {
    const text = "import { a } from './a.ts'\nimport type {\n  B,\n} from \"../b.ts\"\nexport * from './c.ts'\nconst d = await import('./d.ts')\n"
    expect(importSpecifiers(text)).toEqual(['./a.ts', '../b.ts', './c.ts', './d.ts'])
  })
})
