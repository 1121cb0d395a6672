/**
 * A small, strict flag parser. Flags are declared with their type and accepted values; anything
 * unknown or malformed is a usage error that names the flag and says what is accepted.
 */
// The errors entry only: `--help` parses flags and must not load the rest of core (zod and all).
import { KerneltuneError } from '@kerneltune/core/errors'

export type FlagType = 'string' | 'number' | 'integer' | 'boolean' | 'list'

export interface FlagSpec {
  readonly name: string
  readonly type: FlagType
  readonly description: string
  /** Accepted values (for string and list flags). */
  readonly choices?: readonly string[]
  readonly default?: string | number | boolean | readonly string[]
  readonly alias?: string
  /**
   * Other names people give this flag (an issue's or another tool's spelling) that the command
   * does not take: the unknown-flag error for one of them names this flag, so a single spelling
   * stays in help, manifests and stored flags while the other still leads somewhere.
   */
  readonly spelledElsewhere?: readonly string[]
  /** Shown in help as the value's name, e.g. FILE or N. */
  readonly valueName?: string
  readonly min?: number
  readonly max?: number
}

// A string flag declared with literal choices (`as const`) parses to their union: the parser has
// checked the value against them, so a command reads it without a cast.
type ChoiceOf<S extends FlagSpec> = S extends { readonly choices: readonly (infer C extends string)[] } ? C : string

type ValueOf<S extends FlagSpec> = S['type'] extends 'number' | 'integer'
  ? number
  : S['type'] extends 'boolean'
    ? boolean
    : S['type'] extends 'list'
      ? ChoiceOf<S>[]
      : ChoiceOf<S>

type CamelCase<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S

export type ParsedFlags<F extends readonly FlagSpec[]> = {
  [S in F[number] as CamelCase<S['name']>]?: ValueOf<S>
} & { help?: boolean; json?: boolean }

export const camel = (name: string): string => name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())

export const COMMON_FLAGS: readonly FlagSpec[] = [
  { name: 'help', alias: 'h', type: 'boolean', description: 'Show this help and exit.' },
  { name: 'json', type: 'boolean', description: 'Print machine-readable JSON on stdout instead of tables.' },
]

export function usageError(message: string, details?: unknown): KerneltuneError {
  return new KerneltuneError('INVALID_INPUT', message, { details })
}

/** The one positional argument a command takes; `message` says what it is when there is not exactly one. */
export function onePositional(positionals: readonly string[], message: string): string {
  if (positionals.length !== 1) throw usageError(message)
  return positionals[0]!
}

function convert(spec: FlagSpec, raw: string): unknown {
  const flag = `--${spec.name}`
  switch (spec.type) {
    case 'number':
    case 'integer': {
      const n = Number(raw)
      if (raw.trim() === '' || !Number.isFinite(n) || (spec.type === 'integer' && !Number.isInteger(n))) {
        throw usageError(`${flag} expects ${spec.type === 'integer' ? 'a whole number' : 'a number'}, got "${raw}"`)
      }
      if (spec.min !== undefined && n < spec.min) throw usageError(`${flag} must be at least ${spec.min}, got ${n}`)
      if (spec.max !== undefined && n > spec.max) throw usageError(`${flag} must be at most ${spec.max}, got ${n}`)
      return n
    }
    case 'boolean': {
      const v = raw.toLowerCase()
      if (['true', '1', 'yes', 'on'].includes(v)) return true
      if (['false', '0', 'no', 'off'].includes(v)) return false
      throw usageError(`${flag} expects on|off (or true|false), got "${raw}"`)
    }
    case 'list': {
      const items = raw.split(',').map((s) => s.trim()).filter(Boolean)
      if (spec.choices) {
        for (const item of items) {
          if (!spec.choices.includes(item)) throw usageError(`${flag}: "${item}" is not accepted; accepted values: ${spec.choices.join(', ')}`)
        }
      }
      return items
    }
    default:
      if (spec.choices && !spec.choices.includes(raw)) {
        throw usageError(`${flag}: "${raw}" is not accepted; accepted values: ${spec.choices.join(', ')}`)
      }
      return raw
  }
}

/** Parses argv against the flag specs (plus --help and --json). */
export function parseArgs<const F extends readonly FlagSpec[]>(argv: readonly string[], specs: F): { flags: ParsedFlags<F>; positionals: string[] } {
  const all = [...COMMON_FLAGS, ...specs]
  const byName = new Map<string, FlagSpec>()
  for (const s of all) {
    byName.set(s.name, s)
    if (s.alias) byName.set(s.alias, s)
  }
  const flags: Record<string, unknown> = {}
  const positionals: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg)
      continue
    }
    const body = arg.replace(/^--?/, '')
    const eq = body.indexOf('=')
    let name = eq >= 0 ? body.slice(0, eq) : body
    let inline = eq >= 0 ? body.slice(eq + 1) : undefined
    let spec = byName.get(name)
    if (!spec && name.startsWith('no-') && byName.get(name.slice(3))?.type === 'boolean') {
      spec = byName.get(name.slice(3))
      name = name.slice(3)
      inline = 'false'
    }
    if (!spec) {
      const meant = specs.find((s) => s.spelledElsewhere?.includes(name))
      if (meant) throw usageError(`unknown flag --${name}: this command spells it --${meant.name}${meant.valueName ? ` ${meant.valueName}` : ''} (${meant.description})`)
      const known = specs.map((s) => `--${s.name}`).join(', ')
      throw usageError(`unknown flag --${name}${known ? `; this command accepts: ${known}, --help, --json` : '; this command accepts --help and --json'}`)
    }
    let raw = inline
    if (raw === undefined) {
      const next = argv[i + 1]
      if (spec.type === 'boolean') {
        // `--flag on|off` reads the next word only when it is a boolean word.
        raw = next !== undefined && /^(on|off|true|false|yes|no)$/i.test(next) ? (i++, next) : 'true'
      } else {
        if (next === undefined || (next.startsWith('--') && next.length > 2)) {
          throw usageError(`--${spec.name} needs a value${spec.choices ? ` (one of ${spec.choices.join(', ')})` : spec.valueName ? ` (${spec.valueName})` : ''}`)
        }
        raw = next
        i++
      }
    }
    const value = convert(spec, raw)
    // A list flag given twice keeps both (`--model-dir A --model-dir B`), as a repeated flag reads.
    const prev = flags[camel(spec.name)]
    flags[camel(spec.name)] = spec.type === 'list' && Array.isArray(prev) && Array.isArray(value) ? [...prev, ...value] : value
  }
  for (const s of all) {
    const key = camel(s.name)
    if (flags[key] === undefined && s.default !== undefined) flags[key] = s.default
  }
  // Each value was converted by its spec (convert: type, choices, bounds): the shape ParsedFlags<F> spells out.
  return { flags: flags as ParsedFlags<F>, positionals }
}
