/**
 * Helpers for engine plugin authors: combination checking, version resolution and the refusal
 * shape. First-party and third-party engines use the same ones.
 */
import { KerneltuneError, isKerneltuneError } from '../errors.ts'
import { parseWith } from '../validation.ts'
import { ComboSchema, type Combo } from '../schemas/combo.ts'
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
