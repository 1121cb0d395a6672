/**
 * The vitest preset every workspace package uses: it resolves `@kerneltune/*` imports to their
 * TypeScript source through the `@kerneltune/source` export condition, so tests never need a
 * build first. Plain JavaScript, because vitest loads configs from node_modules without
 * transpiling them.
 */
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Keep Vite's default server conditions: replacing them would drop `node`, which native
// packages such as @libsql/client rely on.
const CONDITIONS = ['@kerneltune/source', 'module', 'node', 'development|production']

// Sets one fast-check seed before every test file (see test-shim/fast-check-seed.ts for KERNELTUNE_FC_SEED).
const FAST_CHECK_SEED = fileURLToPath(new URL('./test-shim/fast-check-setup.ts', import.meta.url))

/**
 * KERNELTUNE_FC_SEED=random picks a seed here, once for the whole run, so that every test file
 * (each runs the setup file anew, in a worker that inherits this environment) uses the same
 * one, and the run can be replayed with the printed number.
 */
function pinRandomSeed() {
  if (process.env.KERNELTUNE_FC_SEED?.trim() !== 'random') return
  const seed = Math.floor(Math.random() * 0x7fffffff)
  process.env.KERNELTUNE_FC_SEED = String(seed)
  console.error(`fast-check: random seed ${seed} (replay with KERNELTUNE_FC_SEED=${seed})`)
}

/** @param {import('vitest/config').ViteUserConfig['test']} [overrides] */
export function packageConfig(overrides = {}) {
  pinRandomSeed()
  const { setupFiles = [], ...rest } = overrides
  return defineConfig({
    resolve: { conditions: CONDITIONS },
    ssr: { resolve: { conditions: CONDITIONS } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 30_000,
      ...rest,
      setupFiles: [FAST_CHECK_SEED, ...(Array.isArray(setupFiles) ? setupFiles : [setupFiles])],
    },
  })
}
