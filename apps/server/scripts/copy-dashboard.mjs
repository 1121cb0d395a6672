#!/usr/bin/env node
// After `tsc`: copies the built dashboard (apps/web/dist) to dist/web, where the published
// server finds it (src/dashboard.node.ts), so `kerneltune serve` shows it with no extra step.
import { cpSync, existsSync, rmSync } from 'node:fs'

const from = new URL('../../web/dist/', import.meta.url)
const to = new URL('../dist/web/', import.meta.url)
if (!existsSync(new URL('index.html', from))) {
  console.warn('copy-dashboard: apps/web/dist is not built (pnpm --filter @kerneltune/web build); the server will answer / with 503 and how to build it')
  process.exit(0)
}
rmSync(to, { recursive: true, force: true })
cpSync(from, to, { recursive: true })
