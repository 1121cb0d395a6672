/**
 * Helpers for engine plugin authors: combination checking, version resolution and the refusal
 * shape. First-party and third-party engines use the same ones.
 */
import { KerneltuneError, isKerneltuneError } from '../errors.ts'
import { parseWith } from '../validation.ts'
import { ComboSchema, CORE_DIMENSION_IDS, CORE_DIMENSION_NEUTRAL, type Combo, type CoreDimensionId } from '../schemas/combo.ts'
import type { Refusal } from './engine.ts'

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
  const parsed = stamped(engine, () => parseWith(ComboSchema, combo, `${displayName} combination`))
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
