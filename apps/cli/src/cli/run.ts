/**
 * Dispatch: finds the command named by the leading words of argv, parses its flags, runs it,
 * and turns errors into a message (or a JSON error object with --json) and an exit code.
 */
import { isKerneltuneError, type ErrorCode } from '@kerneltune/core/errors'
import { parseArgs } from './args.ts'
import type { Command, Io } from './command.ts'
import { renderHelp } from './help.ts'

export const EXIT = { OK: 0, FAILURE: 1, USAGE: 2, CHECK_FAILED: 3 } as const

// ENGINE_NOT_INSTALLED: what the command needs is absent here, as with a missing file (NOT_FOUND).
const USAGE_CODES: ReadonlySet<ErrorCode> = new Set(['INVALID_INPUT', 'INVALID_FORMAT', 'INVALID_FEATURE', 'NOT_FOUND', 'ENGINE_NOT_INSTALLED', 'MODEL_NOT_FOUND', 'PLUGIN_NOT_FOUND'])

export async function runCli(root: Command, argv: readonly string[], io: Io): Promise<number> {
  const path: string[] = []
  let command: Command = root
  let rest = [...argv]
  while (rest.length && command.subcommands?.length) {
    const next = command.subcommands.find((c) => c.name === rest[0])
    if (!next) break
    command = next
    path.push(rest.shift()!)
  }
  const wantsJson = rest.includes('--json')
  if (path.length === 0 && root.version && (rest[0] === '--version' || rest[0] === '-V')) {
    io.stdout(wantsJson ? JSON.stringify({ name: root.name, version: root.version }) + '\n' : `${root.name} ${root.version}\n`)
    return EXIT.OK
  }
  try {
    if (command.subcommands?.length && !command.run) {
      if (rest.length && !rest[0]!.startsWith('-')) {
        const names = command.subcommands.map((c) => c.name).join(', ')
        io.stderr(`kerneltune: unknown command "${[...path, rest[0]].join(' ')}"; commands: ${names}\n`)
        return EXIT.USAGE
      }
      io.stdout(renderHelp(path, command))
      return rest.some((a) => a === '--help' || a === '-h') || rest.length === 0 ? EXIT.OK : EXIT.USAGE
    }
    const { flags, positionals } = parseArgs(rest, command.flags ?? [])
    if (flags.help) {
      io.stdout(renderHelp(path, command))
      return EXIT.OK
    }
    const json = flags.json === true
    const code = await command.run!({
      flags,
      positionals,
      json,
      io,
      printJson: (value) => io.stdout(JSON.stringify(value, null, 2) + '\n'),
    })
    return typeof code === 'number' ? code : EXIT.OK
  } catch (err) {
    const known = isKerneltuneError(err)
    const code = known ? err.code : 'INTERNAL'
    const message = err instanceof Error ? err.message : String(err)
    if (wantsJson) {
      io.stdout(JSON.stringify({ ok: false, error: known ? err.toJSON() : { code, message } }, null, 2) + '\n')
    }
    io.stderr(`kerneltune ${path.join(' ')}: ${message}${known ? ` [${code}]` : ''}\n`)
    if (!known && err instanceof Error && io.env.KERNELTUNE_DEBUG) io.stderr(`${err.stack}\n`)
    if (known && USAGE_CODES.has(err.code)) {
      io.stderr(`Run "kerneltune ${path.join(' ')} --help" for the accepted flags.\n`)
      return EXIT.USAGE
    }
    return EXIT.FAILURE
  }
}
