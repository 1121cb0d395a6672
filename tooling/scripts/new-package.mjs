#!/usr/bin/env node
// Creates the skeleton of a workspace package: package.json with the source export condition,
// tsconfig files, the vitest config and a README stub to fill in.
// Usage: node tooling/scripts/new-package.mjs <name> "<description>" [dep ...]
import { mkdirSync, writeFileSync, existsSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const [name, description, ...deps] = process.argv.slice(2)
if (!name || !description) {
  console.error('usage: new-package.mjs <name> "<description>" [dependency ...]')
  process.exit(2)
}
const dir = join(root, 'packages', name)
if (existsSync(join(dir, 'package.json'))) {
  console.error(`packages/${name} already exists`)
  process.exit(1)
}
mkdirSync(join(dir, 'src'), { recursive: true })
const dependencies = {}
for (const d of deps) {
  const at = d.lastIndexOf('@')
  if (d.startsWith('@kerneltune/')) dependencies[d] = 'workspace:*'
  else if (at > 0) dependencies[d.slice(0, at)] = d.slice(at + 1)
  else dependencies[d] = '*'
}
const entry = (file) => ({
  '@kerneltune/source': `./src/${file}.ts`,
  bun: `./src/${file}.ts`,
  deno: `./src/${file}.ts`,
  types: `./dist/${file}.d.ts`,
  import: `./dist/${file}.js`,
  default: `./dist/${file}.js`,
})
const pkg = {
  name: `@kerneltune/${name}`,
  version: '0.1.0',
  description,
  type: 'module',
  license: 'MIT',
  sideEffects: false,
  exports: { '.': entry('index'), './package.json': './package.json' },
  // What pnpm publishes instead of `exports`: dist only (docs/releasing.md).
  publishConfig: { access: 'public', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' }, './package.json': './package.json' } },
  files: ['dist', 'src', '!src/**/*.test.ts', 'README.md'],
  scripts: {
    build: 'tsc -p tsconfig.build.json',
    typecheck: 'tsc -p tsconfig.json',
    test: 'vitest run',
  },
  dependencies,
  devDependencies: { '@kerneltune/tooling': 'workspace:*' },
  kerneltune: { runtimes: ['node', 'bun', 'deno'] },
}
writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n')
// JSR publishes the TypeScript source; the version comes from package.json (deno publish --set-version).
const jsr = { name: pkg.name, license: 'MIT', exports: { '.': './src/index.ts' }, publish: { include: ['src', 'README.md'], exclude: ['src/**/*.test.ts'] } }
writeFileSync(join(dir, 'jsr.json'), JSON.stringify(jsr, null, 2) + '\n')
writeFileSync(
  join(dir, 'tsconfig.json'),
  JSON.stringify({ extends: '../../tooling/tsconfig/library.json', include: ['src'] }, null, 2) + '\n',
)
writeFileSync(
  join(dir, 'tsconfig.build.json'),
  JSON.stringify(
    {
      extends: '../../tsconfig.base.json',
      compilerOptions: { outDir: 'dist', rootDir: 'src', noEmit: false },
      include: ['src'],
      exclude: ['src/**/*.test.ts'],
    },
    null,
    2,
  ) + '\n',
)
writeFileSync(
  join(dir, 'vitest.config.ts'),
  "import { packageConfig } from '@kerneltune/tooling/vitest-preset'\n\nexport default packageConfig()\n",
)
console.log(`created packages/${name}`)
