#!/usr/bin/env node
// Entry of the published package: runs the compiled CLI. In the workspace, `pnpm kerneltune`
// runs the TypeScript source through tsx instead.
import { main } from '../dist/main.js'

process.exitCode = await main(process.argv.slice(2))
