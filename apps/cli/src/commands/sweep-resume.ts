/**
 * The sweep's flags as the command line its run stores, and back: a resume parses them with the
 * command's own table and types (@kerneltune/compose's hold.node.ts holds the run while it is measured).
 */
import type { SweepSpec } from '@kerneltune/compose/node'
import { camel, parseArgs, type FlagSpec } from '../cli/args.ts'
import { SWEEP_FLAGS } from './sweep-flags.ts'

/** Flags that say how to run this invocation, not what the sweep is: never stored. */
const NOT_STORED = new Set(['db', 'resume', 'force', 'out'])

/** The sweep's flags as a command line (`--name=value`), for the run to store. */
export function sweepSpecOf(flags: object, cores: number, specs: readonly FlagSpec[] = SWEEP_FLAGS): SweepSpec {
  const argv: string[] = []
  for (const s of specs) {
    const v = (flags as Readonly<Record<string, unknown>>)[camel(s.name)]
    if (v === undefined || NOT_STORED.has(s.name)) continue
    argv.push(`--${s.name}=${Array.isArray(v) ? v.join(',') : String(v)}`)
  }
  return { argv, cores }
}

/** The stored flags, parsed and checked by the sweep command's own table. */
export function sweepFlagsOf(spec: SweepSpec): Record<string, unknown> {
  return parseArgs(spec.argv, SWEEP_FLAGS).flags
}
