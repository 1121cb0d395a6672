// The dashboard build: one page, hashed assets under /assets, served by the server at `/`.
import { defaultClientConditions, defineConfig } from 'vite'

export default defineConfig({
  base: '/',
  // Workspace packages are bundled from their TypeScript source, as tests and tsx read them.
  resolve: { conditions: ['@kerneltune/source', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: { outDir: 'dist', emptyOutDir: true, reportCompressedSize: false, chunkSizeWarningLimit: 1000 },
})
