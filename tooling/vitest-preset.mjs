/**
 * The vitest preset every workspace package uses: it resolves `@kerneltune/*` imports to their
 * TypeScript source through the `@kerneltune/source` export condition, so tests never need a
 * build first. Plain JavaScript, because vitest loads configs from node_modules without
 * transpiling them.
 */
import { defineConfig } from 'vitest/config'

// Keep Vite's default server conditions: replacing them would drop `node`, which native
// packages such as @libsql/client rely on.
const CONDITIONS = ['@kerneltune/source', 'module', 'node', 'development|production']

/** @param {import('vitest/config').ViteUserConfig['test']} [overrides] */
export function packageConfig(overrides = {}) {
  return defineConfig({
    resolve: { conditions: CONDITIONS },
    ssr: { resolve: { conditions: CONDITIONS } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 30_000,
      ...overrides,
    },
  })
}
