/**
 * Test helpers: run the CLI in-process with an Io that records what it prints, so command tests
 * need neither a child process nor a terminal.
 */
import type { Io } from './command.ts'
import { main } from '../main.ts'

export interface CliResult {
  readonly code: number
  readonly out: string
  readonly err: string
}

/** An Io that records stdout and stderr; `cwd` is where relative paths resolve. */
export function memoryIo(cwd = '/', env: Io['env'] = {}): { io: Io; out: () => string; err: () => string } {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env, cwd }
  return { io, out: () => out.join(''), err: () => err.join('') }
}

/** Runs `kerneltune <args>` in-process and returns its exit code and output. */
export async function runMain(args: readonly string[], cwd = '/'): Promise<CliResult> {
  const m = memoryIo(cwd)
  const code = await main(args, m.io)
  return { code, out: m.out(), err: m.err() }
}
