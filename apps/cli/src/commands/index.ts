/**
 * Every top-level command of the CLI, in the order `kerneltune --help` lists them.
 * A new command lives in its own file in this folder, gets a loader in ./loaders.ts, and joins the
 * manifest with `pnpm --filter @kerneltune/cli commands:manifest` (a test fails while it is stale).
 *
 * Each command answers --help from its declaration in ./manifest.generated.ts and imports its
 * module only when it runs, so `kerneltune --help` or `kerneltune translate` loads no engine
 * it does not use, no backend, store or server app.
 */
import type { Command } from '../cli/command.ts'
import { lazyCommand } from '../cli/lazy.ts'
import { COMMAND_LOADERS } from './loaders.ts'
import { COMMAND_MANIFEST } from './manifest.generated.ts'

export const COMMANDS: Command[] = COMMAND_MANIFEST.map((meta) => {
  const load = COMMAND_LOADERS[meta.name]
  if (!load) throw new Error(`command manifest out of date: no loader for ${meta.name} (pnpm --filter @kerneltune/cli commands:manifest)`)
  return lazyCommand(meta, load)
})
