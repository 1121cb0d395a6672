/**
 * Commands whose `run` loads on demand. A command's declaration (name, flags, help texts) is
 * plain data, kept in a generated manifest; its module, with everything it imports (engines,
 * backends, the store, the server app, native addons), is imported only when the command runs.
 * So `--help`, and a command, load only what they use.
 */
import type { Command } from './command.ts'

/** A command without its hooks: what --help and the flag parser need. */
export type CommandMeta = Omit<Command, 'run' | 'subcommands'> & {
  /** True when the command has a `run` hook (a group without one lists its subcommands). */
  readonly runs?: boolean
  readonly subcommands?: readonly CommandMeta[]
}

/** The declaration of a loaded command, recursively, without its hooks. */
export function commandMeta(command: Command): CommandMeta {
  const { run, subcommands, ...data } = command
  return {
    ...data,
    ...(run ? { runs: true } : {}),
    ...(subcommands ? { subcommands: subcommands.map(commandMeta) } : {}),
  }
}

/** A command that answers --help from `meta` and imports its module (`load`) only to run. */
export function lazyCommand(meta: CommandMeta, load: () => Promise<Command>): Command {
  const { runs, subcommands, ...data } = meta
  return {
    ...data,
    ...(subcommands ? { subcommands: subcommands.map((s) => lazyCommand(s, async () => subcommand(await load(), s.name))) } : {}),
    ...(runs ? { run: async (ctx) => (await load()).run!(ctx) } : {}),
  }
}

function subcommand(parent: Command, name: string): Command {
  const found = parent.subcommands?.find((c) => c.name === name)
  if (!found) throw new Error(`command manifest out of date: ${parent.name} has no subcommand ${name} (pnpm --filter @kerneltune/cli commands:manifest)`)
  return found
}
