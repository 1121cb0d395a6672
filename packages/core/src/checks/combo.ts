/**
 * A combination's shape, checked by hand: every engine's `translate` checks its combination first,
 * and `kerneltune translate` should not load zod (about two thirds of the modules it would load)
 * to do it. Same rule and same messages as `ComboSchema` (checks.test.ts compares them).
 */
import { KerneltuneError } from '../errors.ts'
import type { Combo } from '../dimensions.ts'
import { expected, isPlainObject, issue, stringProblems } from './messages.ts'

/** Dimension ids are snake_case. */
export const DIMENSION_ID: RegExp = /^[a-z][a-z0-9_]*$/
export const DIMENSION_ID_MESSAGE = 'dimension ids are snake_case'

/**
 * Checks a combination: a plain object of snake_case keys to non-empty strings. Returns the
 * combination (own enumerable keys only, `__proto__` dropped, as zod's record does) or every
 * problem as `key: message`.
 */
export function checkComboShape(value: unknown): { ok: true; value: Combo } | { ok: false; errors: string[] } {
  if (!isPlainObject(value)) return { ok: false, errors: [issue([], expected('record', value))] }
  const errors: string[] = []
  const out: Record<string, string> = {}
  for (const key of Reflect.ownKeys(value)) {
    if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(value, key)) continue
    if (typeof key !== 'string' || !DIMENSION_ID.test(key)) {
      errors.push(issue([key], 'Invalid key in record'))
      continue
    }
    const v = value[key]
    const problems = stringProblems(v, true)
    if (problems.length > 0) errors.push(...problems.map((m) => issue([key], m)))
    else out[key] = v as string
  }
  return errors.length === 0 ? { ok: true, value: out } : { ok: false, errors }
}

/**
 * Parses a combination or throws INVALID_INPUT naming `what` and listing every problem: what
 * `parseWith(ComboSchema, value, what)` does, without zod.
 */
export function parseCombo(value: unknown, what: string): Combo {
  const result = checkComboShape(value)
  if (result.ok) return result.value
  throw new KerneltuneError('INVALID_INPUT', `invalid ${what}: ${result.errors.join('; ')}`, {
    details: { errors: result.errors },
  })
}
