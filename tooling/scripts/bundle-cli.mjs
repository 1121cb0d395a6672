#!/usr/bin/env node
// Bundles the kerneltune CLI (and the GPU kit's driver) into single JavaScript files that run on
// a bare Node with no node_modules: the device machines of issue 28 have no npm and no network.
// Only modules with native code stay out (node-llama-cpp, onnxruntime-node, libsql, the browser driver): the kit
// launches llama-server as a process and never touches them, and they are imported lazily, so a
// command that needs them fails with its own error instead of the bundle failing to load.
//
// Usage: node tooling/scripts/bundle-cli.mjs --out-dir DIR
//   writes DIR/kerneltune.mjs (the CLI) and DIR/kit.mjs (bench/gpu/kit.ts), prints their sizes.
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mkdirSync } from 'node:fs'
import { build } from 'esbuild'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const args = process.argv.slice(2)
const outIdx = args.indexOf('--out-dir')
if (outIdx < 0 || !args[outIdx + 1]) {
  console.error('usage: node tooling/scripts/bundle-cli.mjs --out-dir DIR')
  process.exit(2)
}
const outDir = resolve(args[outIdx + 1])

// libsql (the embedded store's SQLite) loads a prebuilt binary by platform: pack-device.sh ships it
// in a node_modules folder beside the bundle, where Node's resolution finds it.
const NATIVE = ['node-llama-cpp', '@node-llama-cpp/*', 'onnxruntime-node', 'libsql', 'playwright-core']
// ESM output still meets CommonJS dependencies that call require(): give them one.
const banner = "import { createRequire as __ktRequire } from 'node:module'; const require = __ktRequire(import.meta.url);"

mkdirSync(outDir, { recursive: true })
const entries = [
  { name: 'kerneltune.mjs', contents: "import { main } from './apps/cli/src/main.ts'\nprocess.exitCode = await main(process.argv.slice(2))\n" },
  { name: 'kit.mjs', contents: "import { kitMain } from './bench/gpu/kit.ts'\nprocess.exitCode = await kitMain(process.argv.slice(2))\n" },
]
for (const e of entries) {
  const result = await build({
    stdin: { contents: e.contents, resolveDir: root, sourcefile: `${e.name}.entry.ts`, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: join(outDir, e.name),
    conditions: ['@kerneltune/source'],
    external: NATIVE,
    banner: { js: banner },
    metafile: true,
    logLevel: 'error',
    legalComments: 'none',
  })
  const bytes = Object.values(result.metafile.outputs).reduce((s, o) => s + o.bytes, 0)
  console.log(`${e.name} ${bytes}`)
}
