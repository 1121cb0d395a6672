// Writes src/commands/manifest.generated.ts from the command modules (see src/cli/lazy.ts).
// Usage: pnpm --filter @kerneltune/cli commands:manifest
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { buildCommandManifest, renderCommandManifest } from '../src/commands/manifest.ts'

const target = fileURLToPath(new URL('../src/commands/manifest.generated.ts', import.meta.url))
writeFileSync(target, renderCommandManifest(await buildCommandManifest()))
console.log(`wrote ${target}`)
