// The dashboard build: one page, hashed assets under /assets, served by the server at `/`.
import { relative } from 'node:path'
import { defaultClientConditions, defineConfig, type Plugin } from 'vite'
import { builtLine, isDependencyUseClientNote } from './src/build-output.ts'

// Says in one line that the page was built (the build runs at --logLevel warn, so vite's own
// per-file listing is not printed).
function builtReport(): Plugin {
  let started = 0
  let outDir = 'dist'
  return {
    name: 'kerneltune-built-line',
    apply: 'build',
    configResolved(config) {
      outDir = relative(process.cwd(), `${config.root}/${config.build.outDir}`) || '.'
    },
    buildStart() {
      started = performance.now()
    },
    writeBundle(_options, bundle) {
      const items = Object.values(bundle)
      const bytes = items.reduce((n, it) => n + (it.type === 'chunk' ? Buffer.byteLength(it.code) : typeof it.source === 'string' ? Buffer.byteLength(it.source) : it.source.byteLength), 0)
      console.log(builtLine(outDir, items.length, bytes, performance.now() - started))
    },
  }
}

export default defineConfig({
  base: '/',
  // Workspace packages are bundled from their TypeScript source, as tests and tsx read them.
  resolve: { conditions: ['@kerneltune/source', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  plugins: [builtReport()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1000,
    rolldownOptions: {
      onwarn(warning, defaultHandler) {
        if (!isDependencyUseClientNote(warning)) defaultHandler(warning)
      },
    },
  },
})
