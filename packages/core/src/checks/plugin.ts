/**
 * A plugin's shape, checked by hand: the registry checks every plugin it is given, and
 * `kerneltune translate` registers the engine it translates for, so this runs at start-up where
 * loading zod would cost more than the rest of the command. The rules and messages are those of
 * the zod schemas this replaced (checks.test.ts keeps them and compares the two).
 */
import { CORE_DIMENSION_IDS } from '../dimensions.ts'
import { PLUGIN_KINDS, type PluginBase, type PluginKind } from '../contracts/plugin.ts'
import type { PluginByKind } from '../contracts/plugin-by-kind.ts'
import { expected, isObject, issue, oneOf, stringProblems } from './messages.ts'

/** Checks a value at `path`, returning every problem as `dot.path: message`. */
type Check = (value: unknown, path: readonly PropertyKey[]) => string[]

const fn: Check = (v, path) => (typeof v === 'function' ? [] : [issue(path, 'must be a function')])

const nonEmpty: Check = (v, path) => stringProblems(v, true).map((m) => issue(path, m))

const matching = (pattern: RegExp, message: string): Check => (v, path) => {
  if (typeof v !== 'string') return [issue(path, expected('string', v))]
  return pattern.test(v) ? [] : [issue(path, message)]
}

const oneOfValues = (values: readonly string[]): Check => (v, path) =>
  typeof v === 'string' && values.includes(v) ? [] : [issue(path, oneOf(values))]

const boolean: Check = (v, path) => (typeof v === 'boolean' ? [] : [issue(path, expected('boolean', v))])

const array = (item?: Check): Check => (v, path) => {
  if (!Array.isArray(v)) return [issue(path, expected('array', v))]
  return item ? v.flatMap((x, i) => item(x, [...path, i])) : []
}

// A positive whole number, with zod's int().positive() wording: a fraction stops there, an unsafe
// integer is out of range but is still checked for sign.
const positiveInt: Check = (v, path) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) return [issue(path, expected('number', v))]
  if (!Number.isInteger(v)) return [issue(path, expected('int', v))]
  const out: string[] = []
  if (v > Number.MAX_SAFE_INTEGER) out.push(issue(path, `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`))
  if (v < Number.MIN_SAFE_INTEGER) out.push(issue(path, `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`))
  if (v <= 0) out.push(issue(path, 'Too small: expected number to be >0'))
  return out
}

interface Field {
  readonly check: Check
  readonly optional?: boolean
}
const optional = (check: Check): Field => ({ check, optional: true })

/** A check of an object's members, which it names: the one list of them (tests derive theirs from it). */
export type ObjectCheck<K extends string = string> = Check & { readonly members: readonly K[] }

/**
 * An object whose fields are checked in order, reading through the prototype chain as zod does.
 * An optional field may be absent or undefined.
 */
function object<K extends string>(shape: { readonly [k in K]: Check | Field }): ObjectCheck<K> {
  const entries = Object.entries(shape) as [K, Check | Field][]
  const check: Check = (v, path) => {
    if (!isObject(v)) return [issue(path, expected('object', v))]
    const out: string[] = []
    for (const [key, spec] of entries) {
      const { check: member, optional: isOptional = false } = typeof spec === 'function' ? { check: spec } : spec
      const value = v[key]
      if (isOptional && value === undefined) continue
      out.push(...member(value, [...path, key]))
    }
    return out
  }
  return Object.assign(check, { members: entries.map(([k]) => k) })
}

const PLUGIN_NAME = /^[a-z0-9][a-z0-9:._/-]*$/
const TRITON_BACKEND = /^[a-z0-9_]+$/

/** The members every plugin has: its name, its kind and the contract version it implements. */
export const pluginHead: ObjectCheck<keyof PluginBase & string> = object({
  name: matching(PLUGIN_NAME, 'lower-case letters, digits and : . _ / -'),
  kind: oneOfValues(PLUGIN_KINDS),
  apiVersion: positiveInt,
})

/** The members a kind's contract adds to PluginBase (the compiler holds the checks to them). */
type HookOf<P extends PluginKind> = Exclude<keyof PluginByKind[P], keyof PluginBase> & string

/** The hooks each kind must have; optional hooks are feature-tested by their callers. */
export const pluginHooks: { readonly [P in PluginKind]: ObjectCheck<HookOf<P>> } = {
  engine: object({
    displayName: nonEmpty,
    defaultVersion: nonEmpty,
    supportedVersions: fn,
    translate: fn,
    // Optional at run time so plugins written before `controls` existed still load (as all six).
    controls: optional(array(oneOfValues(CORE_DIMENSION_IDS))),
    inventory: optional(fn),
    tritonBackend: optional(object({ backend: matching(TRITON_BACKEND, 'a Triton backend name: lower-case letters, digits and _'), plan: fn })),
  }),
  'measurement-backend': object({ simulated: boolean, measure: fn }),
  'search-strategy': object({ create: fn }),
  predictor: object({ predict: fn }),
  'kernel-provider': object({ parameters: array(), isValid: fn, generate: fn, reference: fn }),
  'kernel-generator': object({ generate: fn }),
}
