// The browser suite: one server and one chromium per file, files one after another (2-core CI).
import { defineConfig } from 'vitest/config'

// @kerneltune/* from source (the gateway scenario writes to the server's store, as the CLI does).
const CONDITIONS = ['@kerneltune/source', 'module', 'node', 'development|production']

export default defineConfig({
  resolve: { conditions: CONDITIONS },
  ssr: { resolve: { conditions: CONDITIONS } },
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['src/build.global.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
})
