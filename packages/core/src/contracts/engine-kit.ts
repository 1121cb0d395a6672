/**
 * Helpers for engine plugin authors: combination checking, version resolution and the refusal
 * shape. First-party and third-party engines use the same ones.
 */
import { KerneltuneError, isKerneltuneError } from '../errors.ts'
import { parseCombo } from '../checks/combo.ts'
import { CORE_DIMENSION_IDS, CORE_DIMENSION_NEUTRAL, type Combo, type CoreDimensionId } from '../dimensions.ts'
import type { Refusal, TranslateResult } from './engine.ts'

export function refusal(engine: string, version: string, dimension: string, value: string, reason: string): Refusal {
  return { ok: false, engine, version, dimension, value, reason }
}

/**
 * Validates the combination's shape (throws INVALID_INPUT: that is a caller bug, not something an
 * engine can or cannot express), then refuses a dimension the engine does not know or a value
 * that dimension does not have. Returns undefined when every key and value is known.
 */
export function checkCombo(
  engine: string,
  displayName: string,
  version: string,
  combo: Combo,
  known: Readonly<Record<string, readonly string[]>>,
): Refusal | undefined {
  const parsed = stamped(engine, () => parseCombo(combo, `${displayName} combination`))
  for (const [dimension, value] of Object.entries(parsed)) {
    const values = known[dimension]
    if (!values) {
      return refusal(engine, version, dimension, value,
        `${displayName} has no dimension ${dimension}; known dimensions: ${Object.keys(known).join(', ')}`)
    }
    if (!values.includes(value)) {
      return refusal(engine, version, dimension, value,
        `${value} is not a value of ${dimension}; known values: ${values.join(', ')}`)
    }
  }
  return undefined
}

/**
 * The supported version a request names: an exact match, a patch release of a supported minor
 * (`0.11.2` → `0.11`), or any release a trailing `x` covers (`1.2x` covers `1.22.1`).
 * Anything else is INVALID_INPUT listing the supported versions: a version is not a combination
 * dimension, so it is an error rather than a refusal.
 */
export function resolveVersion(engine: string, displayName: string, requested: string | undefined, supported: readonly string[], fallback: string): string {
  if (requested === undefined) return fallback
  for (const v of supported) {
    if (requested === v || requested.startsWith(`${v}.`)) return v
    if (v.endsWith('x') && new RegExp(`^${v.slice(0, -1).replace(/\./g, '\\.')}\\d(\\.\\d+)*$`).test(requested)) return v
  }
  throw new KerneltuneError('INVALID_INPUT',
    `${displayName} version ${requested} is not supported; supported versions: ${supported.join(', ')} (patch releases of these are accepted)`,
    { details: { requested, supported }, plugin: engine })
}

/**
 * Runs `fn`, stamping a KerneltuneError it throws with the engine's name: the registry passes
 * errors that already name their plugin through unchanged, so callers keep the INVALID_INPUT code
 * instead of a generic PLUGIN_ERROR.
 */
export function stamped<T>(engine: string, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (isKerneltuneError(err) && err.plugin === undefined) {
      throw new KerneltuneError(err.code, err.message, { cause: err.cause, details: err.details, plugin: engine })
    }
    throw err
  }
}

/** The result of `applyControls`: the combination the engine's own mapping should see. */
export interface ControlledCombo {
  readonly ok: true
  /** The combination without the uncontrolled core dimensions. */
  readonly combo: Combo
  /** One note per uncontrolled dimension the combination carried at its neutral value. */
  readonly notes: readonly string[]
}

/**
 * Handles the core dimensions an engine does not control: the neutral value (the catalog's
 * default, which a run's baseline carries) is accepted and dropped with a note that the choice is
 * left to the engine; any other value is refused, saying that the engine has no control for it.
 * Call it after `checkCombo`, and map the returned `combo`.
 */
export function applyControls(
  engine: string,
  displayName: string,
  version: string,
  combo: Combo,
  controls: readonly CoreDimensionId[],
): ControlledCombo | Refusal {
  const kept: Record<string, string> = {}
  const notes: string[] = []
  for (const [dimension, value] of Object.entries(combo)) {
    const core = (CORE_DIMENSION_IDS as readonly string[]).includes(dimension) ? (dimension as CoreDimensionId) : undefined
    if (core === undefined || controls.includes(core)) {
      kept[dimension] = value
      continue
    }
    const neutral = CORE_DIMENSION_NEUTRAL[core]
    if (value !== neutral) {
      return refusal(engine, version, dimension, value,
        `${displayName} has no control for ${dimension}: it makes that choice itself, so only the neutral value ${neutral} (left to the engine) is accepted`)
    }
    notes.push(`${dimension}=${value}: left to the engine (${displayName} has no control for ${dimension}).`)
  }
  return { ok: true, combo: kept, notes }
}

// Characters a POSIX shell passes through unchanged in an unquoted word (no globbing, expansion,
// splitting, redirection or comments), so such words are printed bare for readability.
const SAFE_WORD = /^[A-Za-z0-9_/.,:=+@%-]+$/
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Quotes one word for a POSIX shell: safe words stay bare, everything else goes in single quotes
 * (a single quote inside becomes `'\''`). The empty word is `''`. Inside single quotes nothing is
 * special, so `{"mode":3}` reaches the program unchanged instead of being brace-expanded and
 * stripped of its quotes.
 */
export function shellQuote(word: string): string {
  return SAFE_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

export interface FormatCommandLineOptions {
  /** `prefix` (default): `NAME=value cmd ...` on one line; `export`: one `export NAME=value` line each, then the command. */
  readonly env?: 'prefix' | 'export'
  /** Break the line before each flag with a backslash-newline (still one shell command). */
  readonly multiline?: boolean
}

/**
 * A translation's command line exactly as a POSIX shell needs it: each argv word quoted where
 * needed and the environment as `NAME=value` prefixes or `export` lines. Pasted into `sh`, the
 * program receives `argv` word for word. An environment name that is not a shell identifier is
 * INVALID_INPUT (a shell would run it as a command).
 */
export function formatCommandLine(command: { readonly argv: readonly string[]; readonly env?: Readonly<Record<string, string>> }, options: FormatCommandLineOptions = {}): string {
  const env = Object.entries(command.env ?? {})
  for (const [name] of env) {
    if (!ENV_NAME.test(name)) throw new KerneltuneError('INVALID_INPUT', `environment variable name ${JSON.stringify(name)} is not a shell identifier (letters, digits, _; not starting with a digit)`)
  }
  const assignments = env.map(([name, value]) => `${name}=${shellQuote(value)}`)
  // A bare first word holding `=` would be read as one more assignment, so it is always quoted.
  const words = command.argv.map((w, i) => (i === 0 && w.includes('=') ? `'${w.replace(/'/g, `'\\''`)}'` : shellQuote(w)))
  const sep = options.multiline ? ' \\\n  ' : ' '
  const parts: string[] = []
  for (const [i, w] of words.entries()) {
    if (i > 0 && options.multiline && command.argv[i]!.startsWith('-')) parts.push(sep)
    else if (i > 0) parts.push(' ')
    parts.push(w)
  }
  const line = parts.join('')
  if (options.env === 'export') return [...assignments.map((a) => `export ${a}`), line].filter((l) => l !== '').join('\n')
  return [...assignments, line].filter((l) => l !== '').join(' ')
}

/** A translate result as JSON: the translation's argv, env, files and notes, or the refusal. */
export function translationJson(r: TranslateResult): Record<string, unknown> {
  return r.ok
    ? { ok: true, engine: r.engine, version: r.version, argv: r.argv, env: r.env, files: r.files, notes: r.notes }
    : { ok: false, engine: r.engine, version: r.version, dimension: r.dimension, value: r.value, reason: r.reason }
}

/**
 * A translate result as a ready-to-paste shell script under a `# <engine> <version>` heading:
 * `export` lines, the quoted command with a line break before each flag, each file, and the
 * notes as comments; or one line saying why the engine refuses the combination.
 */
export function translationScript(displayName: string, r: TranslateResult): string {
  if (!r.ok) return `${displayName} ${r.version} cannot express ${r.dimension}=${r.value}: ${r.reason}\n`
  const out: string[] = []
  if (r.argv.length > 0) out.push(`# ${displayName} ${r.version}`, formatCommandLine(r, { env: 'export', multiline: true }), '')
  else {
    out.push(`# ${displayName} ${r.version}: no command line`)
    for (const [k, v] of Object.entries(r.env)) out.push(`export ${k}=${shellQuote(v)}`)
    out.push('')
  }
  for (const [name, content] of Object.entries(r.files)) out.push(`# file: ${name}`, content.replace(/\n$/, ''), '')
  if (r.notes.length > 0) out.push('# notes', ...r.notes.map((n) => `# - ${n}`), '')
  return out.join('\n')
}
