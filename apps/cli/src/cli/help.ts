import { COMMON_FLAGS, type FlagSpec } from './args.ts'
import type { Command } from './command.ts'

function flagLine(s: FlagSpec): [string, string] {
  const value =
    s.type === 'boolean' ? '' : ` ${s.valueName ?? (s.choices ? s.choices.join('|') : s.type === 'list' ? 'A,B,...' : s.type === 'string' ? 'VALUE' : 'N')}`
  const name = `${s.alias ? `-${s.alias}, ` : ''}--${s.name}${value}`
  const def = s.default !== undefined ? ` (default: ${Array.isArray(s.default) ? s.default.join(',') : String(s.default)})` : ''
  return [name, `${s.description}${def}`]
}

/** The --help text of a command, from its declaration. */
export function renderHelp(path: readonly string[], command: Command): string {
  const lines: string[] = []
  const name = ['kerneltune', ...path].join(' ')
  const pos = command.positionals?.length ? ' ' + command.positionals.map((p) => `<${p}>`).join(' ') : ''
  const sub = command.subcommands?.length ? ' <command>' : ''
  lines.push(`Usage: ${command.usage ?? `${name}${sub}${pos} [flags]`}`, '', command.summary)
  if (command.description) lines.push('', command.description.trim())
  if (command.subcommands?.length) {
    lines.push('', 'Commands:')
    const w = Math.max(...command.subcommands.map((c) => c.name.length))
    for (const c of command.subcommands) lines.push(`  ${c.name.padEnd(w)}  ${c.summary}`)
    lines.push('', `Run "${name} <command> --help" for a command's flags.`)
  }
  const flags = [...(command.flags ?? []), ...COMMON_FLAGS].map(flagLine)
  if (command.version) flags.push(['-V, --version', 'Print the version and exit.'])
  lines.push('', 'Flags:')
  const w = Math.max(...flags.map(([n]) => n.length))
  for (const [n, d] of flags) lines.push(`  ${n.padEnd(w)}  ${d}`)
  if (command.jsonOutput) lines.push('', `JSON output (--json): ${command.jsonOutput.trim()}`)
  if (command.examples?.length) {
    lines.push('', 'Examples:')
    for (const e of command.examples) lines.push(`  ${e}`)
  }
  lines.push('', 'Exit codes: 0 success; 1 failure while running; 2 bad flags or bad input; 3 a check or quality gate did not pass.')
  return lines.join('\n') + '\n'
}
