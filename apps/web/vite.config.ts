// The dashboard build: one page, hashed assets under /assets, served by the server at `/`.
import { defineConfig } from 'vite'

export default defineConfig({
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: { outDir: 'dist', emptyOutDir: true, reportCompressedSize: false, chunkSizeWarningLimit: 1000 },
})
