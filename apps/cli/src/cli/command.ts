/**
 * How a CLI command is declared: a plain object with its flags, examples and a `run` hook.
 * Every command gets `--help` and `--json` for free; flags are parsed and checked before `run`.
 */
import type { FlagSpec, ParsedFlags } from './args.ts'

export interface Io {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /** True when stderr is a terminal: progress bars draw only then. */
  readonly interactive: boolean
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
}

export interface CommandContext<F extends readonly FlagSpec[] = readonly FlagSpec[]> {
  readonly flags: ParsedFlags<F>
  readonly positionals: readonly string[]
  readonly json: boolean
  readonly io: Io
  /** Writes a JSON value to stdout (pretty, newline-terminated). */
  readonly printJson: (value: unknown) => void
}

export interface Command<F extends readonly FlagSpec[] = readonly FlagSpec[]> {
  readonly name: string
  readonly summary: string
  /** Longer text shown by --help under the usage line. */
  readonly description?: string
  readonly usage?: string
  readonly flags?: F
  readonly examples?: readonly string[]
  /** Subcommands (`hardware list`); a command with subcommands and no `run` lists them. */
  readonly subcommands?: readonly Command[]
  /** Positional arguments: names for the help text; the command checks them. */
  readonly positionals?: readonly string[]
  /** Describes the --json output for --help. */
  readonly jsonOutput?: string
  /** The root command's version: `--version` prints it (with --json, as `{ name, version }`). */
  readonly version?: string
  run?(ctx: CommandContext<F>): Promise<number | void> | number | void
}

/** Declares a command with its flag types inferred. */
export function defineCommand<const F extends readonly FlagSpec[]>(command: Command<F>): Command<F> {
  return command
}
