/**
 * The wording of zod's issues, for the checks written by hand on the start-up path (a combination,
 * a plugin's shape): their errors read exactly as the zod schemas' did, so callers, tests and
 * users see one language whichever side checked. `checks.test.ts` holds the zod schemas they
 * replace and compares the two over a corpus of inputs.
 */

/** What zod calls a value's type in "received ...": a class instance by its constructor's name. */
export function typeName(value: unknown): string {
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : Number.isFinite(value) ? 'number' : String(value)
  if (typeof value !== 'object') return typeof value
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  const ctor = Object.getPrototypeOf(value) !== Object.prototype && 'constructor' in value ? (value as { constructor: unknown }).constructor : undefined
  return ctor ? String((ctor as { name?: unknown }).name) : 'object'
}

/** zod's invalid_type message. */
export const expected = (type: string, value: unknown): string => `Invalid input: expected ${type}, received ${typeName(value)}`

/** zod's invalid_value message for an enum. */
export const oneOf = (values: readonly string[]): string => `Invalid option: expected one of ${values.map((v) => `"${v}"`).join('|')}`

/**
 * The problems zod's `z.string()` (with `.min(1)` when `nonEmpty`) finds in a value, as bare
 * messages. zod runs its length check on anything with a `length`, even after "expected string",
 * so an empty array or a function of no parameters gets a second message; kept so the wording
 * matches.
 */
export function stringProblems(value: unknown, nonEmpty: boolean): string[] {
  if (typeof value === 'string') return nonEmpty && value.length === 0 ? ['Too small: expected string to have >=1 characters'] : []
  const out = [expected('string', value)]
  const length = value === null || value === undefined ? undefined : (value as { length?: unknown }).length
  if (nonEmpty && length !== undefined && !((length as number) >= 1)) {
    out.push(Array.isArray(value) ? 'Too small: expected array to have >=1 items' : 'Too small: expected unknown to be >=1')
  }
  return out
}

/** An issue as zod's formatIssues prints it: `dot.path: message`, `(root)` for the value itself. */
export const issue = (path: readonly PropertyKey[], message: string): string =>
  `${path.length === 0 ? '(root)' : path.map(String).join('.')}: ${message}`

/** An object as zod's z.object accepts it: not null, not an array. */
export const isObject = (value: unknown): value is Record<PropertyKey, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * An object as zod's z.record accepts it: a plain object (or one without a prototype), not a
 * class instance, array, Map or Date.
 */
export function isPlainObject(value: unknown): value is Record<PropertyKey, unknown> {
  if (!isObject(value)) return false
  const ctor = value.constructor
  if (ctor === undefined || typeof ctor !== 'function') return true
  const proto: unknown = ctor.prototype
  return isObject(proto) && Object.prototype.hasOwnProperty.call(proto, 'isPrototypeOf')
}
