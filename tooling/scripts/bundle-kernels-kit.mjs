#!/usr/bin/env node
// Bundles the kernels kit's script (bench/gpu-kernels-kit/kit.ts with @kerneltune/gpu-kernels,
// @kerneltune/metal-marlin-autotune and their dependencies) into one ES module that Deno runs with
// no node_modules and no network: the device machines of issue 40 have neither. Same esbuild
// settings as bundle-cli.mjs; node: built-ins stay imports, which Deno provides.
//
// Usage: node tooling/scripts/bundle-kernels-kit.mjs --out FILE      prints the bundle's size
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mkdirSync } from 'node:fs'
import { build } from 'esbuild'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const args = process.argv.slice(2)
const outIdx = args.indexOf('--out')
if (outIdx < 0 || !args[outIdx + 1]) {
  console.error('usage: node tooling/scripts/bundle-kernels-kit.mjs --out FILE')
  process.exit(2)
}
const outfile = resolve(args[outIdx + 1])
mkdirSync(dirname(outfile), { recursive: true })
// CommonJS dependencies that call require() get one (Deno implements node:module).
const banner = "import { createRequire as __ktRequire } from 'node:module'; const require = __ktRequire(import.meta.url);"
const result = await build({
  stdin: {
    contents: "import { kitMain } from './bench/gpu-kernels-kit/kit.ts'\nDeno.exitCode = await kitMain(Deno.args)\n",
    resolveDir: root,
    sourcefile: 'kernels-kit.entry.ts',
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'es2022',
  outfile,
  conditions: ['@kerneltune/source'],
  banner: { js: banner },
  metafile: true,
  logLevel: 'error',
  legalComments: 'none',
})
const bytes = Object.values(result.metafile.outputs).reduce((s, o) => s + o.bytes, 0)
console.log(`kit.mjs ${bytes}`)
