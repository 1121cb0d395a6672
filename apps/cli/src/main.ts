/**
 * @module @kerneltune/cli
 * The `kerneltune` command. `main(argv)` runs it and resolves with the exit code, so it can be
 * embedded and tested without spawning a process.
 */
import process from 'node:process'
import type { Command, Io } from './cli/command.ts'
import { runCli } from './cli/run.ts'
import { COMMANDS } from './commands/index.ts'
import { CLI_VERSION } from './version.ts'

export const ROOT_COMMAND: Command = {
  name: 'kerneltune',
  summary: 'Predict, search, apply and measure LLM inference kernels and engine flags.',
  description:
    'Every command takes --help and --json. Predictions are labelled as predictions; measurements say what was measured, how many times, and on what.',
  subcommands: COMMANDS,
  version: CLI_VERSION,
}

export function nodeIo(): Io {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    interactive: Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
  }
}

export function main(argv: readonly string[], io: Io = nodeIo()): Promise<number> {
  return runCli(ROOT_COMMAND, argv, io)
}

// Run when executed directly (tsx apps/cli/src/main.ts, bun, deno), not when imported.
const invoked = process.argv[1] ?? ''
if (/[\\/]main\.(ts|js)$/.test(invoked) && import.meta.url.endsWith(invoked.split(/[\\/]/).slice(-3).join('/'))) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code
  })
}
