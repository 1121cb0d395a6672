/**
 * The hand-written checks (a combination, a plugin's shape) against the zod schemas they replaced,
 * kept here as the reference: over a corpus of good and bad values, and over values fast-check
 * generates around valid ones, both must accept the same ones and word every problem the same, so
 * replacing zod on the start-up path changed no error. The members tried are the ones the checks
 * name (pluginHead.members, pluginHooks[kind].members), not a list kept here.
 */
import fc from 'fast-check'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { formatIssues, parseWith } from '../validation.ts'
import { isKerneltuneError } from '../errors.ts'
import { CORE_DIMENSION_IDS } from '../dimensions.ts'
import { PLUGIN_KINDS, type PluginKind } from '../contracts/plugin.ts'
import { ComboSchema } from '../schemas/combo.ts'
import { checkComboShape, DIMENSION_ID, parseCombo } from './combo.ts'
import { pluginHead, pluginHooks } from './plugin.ts'
import { typeName } from './messages.ts'

// The schemas registry.ts validated plugins with before issue 24, verbatim.
const fn = z.custom<(...args: unknown[]) => unknown>((v) => typeof v === 'function', 'must be a function')
const zodHead = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9:._/-]*$/, 'lower-case letters, digits and : . _ / -'),
  kind: z.enum(PLUGIN_KINDS as [PluginKind, ...PluginKind[]]),
  apiVersion: z.number().int().positive(),
})
const zodHooks: Record<PluginKind, z.ZodObject> = {
  engine: z.object({
    displayName: z.string().min(1),
    defaultVersion: z.string().min(1),
    supportedVersions: fn,
    translate: fn,
    controls: z.array(z.enum(CORE_DIMENSION_IDS)).optional(),
    inventory: fn.optional(),
    tritonBackend: z.object({ backend: z.string().regex(/^[a-z0-9_]+$/, 'a Triton backend name: lower-case letters, digits and _'), plan: fn }).optional(),
  }),
  'measurement-backend': z.object({ simulated: z.boolean(), measure: fn }),
  'search-strategy': z.object({ create: fn }),
  predictor: z.object({ predict: fn }),
  'kernel-provider': z.object({ parameters: z.array(z.any()), isValid: fn, generate: fn, reference: fn }),
  'kernel-generator': z.object({ generate: fn }),
}

const zodProblems = (schema: z.ZodType, value: unknown): string[] => {
  const r = schema.safeParse(value)
  return r.success ? [] : formatIssues(r.error.issues)
}

class Custom {
  a = 'b'
}
const noop = (): void => {}

// Values of every type zod tells apart, as a whole and as a member.
const ANY: readonly unknown[] = [
  undefined, null, true, 0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 60, -(2 ** 60), 1n, '', 'x', Symbol('s'),
  [], ['a'], {}, new Date(0), new Map(), new Set(), /x/, noop, new Custom(), Object.create(null), new String('ab'),
  Promise.resolve(), Object.assign(Object.create({ inherited: 1 }), { own: 'v' }), { constructor: 'x' }, { length: 0 }, { length: 'x' },
  (a: unknown) => a, [1, 2],
]

describe('checkComboShape, against ComboSchema', () => {
  const combos: unknown[] = [
    ...ANY,
    { attention_backend: 'flashinfer' }, { a: 'b', c_1: 'd' }, { A: 'x' }, { '1a': 'x' }, { 1: 'x' }, { '': 'x' }, { _a: 'x' },
    { a: '' }, { a: 3 }, { a: null }, { a: undefined }, { a: {} }, { a: ['x'] }, { A: 1, b: '', c: 'ok', D: '' },
    { [Symbol('s')]: 'x', a: 'b' }, JSON.parse('{"__proto__": "x"}'), JSON.parse('{"__proto__": {"a": "b"}, "c": "d"}'),
    Object.assign(Object.create(null), { a: 'b' }), Object.assign(Object.create(null), { B: 'b' }),
    Object.defineProperty({ a: 'b' }, 'Hidden', { value: 3, enumerable: false }), Object.create({ a: 3 }),
    ...ANY.map((v) => ({ dim: v })),
  ]

  it.each(combos.map((v, i) => [i, typeName(v), v]))('should judge combination %i (%s) as zod does', (_i, _t, value) => {
    const mine = checkComboShape(value)
    const theirs = ComboSchema.safeParse(value)
    expect(mine.ok ? [] : mine.errors).toEqual(zodProblems(ComboSchema, value))
    if (mine.ok && theirs.success) {
      expect(mine.value).toEqual(theirs.data)
      expect(Object.getOwnPropertyNames(mine.value)).toEqual(Object.getOwnPropertyNames(theirs.data))
    }
  })

  it('should judge generated combinations as zod does, valid and invalid', () => {
    const key = fc.oneof(fc.stringMatching(DIMENSION_ID), fc.string(), fc.constantFrom('__proto__', 'constructor', 'A', '1a', ''))
    const value = fc.oneof(fc.string(), fc.constantFrom(...ANY), fc.anything())
    const combo = fc.oneof({ arbitrary: fc.dictionary(key, value, { maxKeys: 4 }), weight: 2 }, { arbitrary: fc.dictionary(fc.stringMatching(DIMENSION_ID), fc.string({ minLength: 1 }), { maxKeys: 4 }), weight: 2 }, { arbitrary: fc.anything(), weight: 1 })
    fc.assert(fc.property(combo, (v) => {
      const mine = checkComboShape(v)
      const theirs = ComboSchema.safeParse(v)
      expect(mine.ok ? [] : mine.errors).toEqual(zodProblems(ComboSchema, v))
      if (mine.ok && theirs.success) expect(mine.value).toEqual(theirs.data)
    }), { numRuns: 500 })
    const verdicts = fc.sample(combo, 300).map((v) => checkComboShape(v).ok)
    expect(verdicts.filter(Boolean).length).toBeGreaterThan(20)
    expect(verdicts.filter((v) => !v).length).toBeGreaterThan(20)
  })

  it('should throw the INVALID_INPUT error parseWith threw, message and details alike', () => {
    const bad = { A: 'x', b: '' }
    const thrown = (f: () => unknown): unknown => {
      try {
        f()
      } catch (e) {
        return e
      }
      throw new Error('expected a throw')
    }
    const mine = thrown(() => parseCombo(bad, 'vLLM combination'))
    const theirs = thrown(() => parseWith(ComboSchema, bad, 'vLLM combination'))
    expect(isKerneltuneError(mine) && mine.code).toBe('INVALID_INPUT')
    expect((mine as Error).message).toBe('invalid vLLM combination: A: Invalid key in record; b: Too small: expected string to have >=1 characters')
    expect((mine as Error).message).toBe((theirs as Error).message)
    expect((mine as { details: unknown }).details).toEqual((theirs as { details: unknown }).details)
  })
})

/** A valid plugin of each kind (the registry accepts each). */
const GOOD: Record<PluginKind, Record<string, unknown>> = {
  engine: { name: 'engine:x', kind: 'engine', apiVersion: 1, displayName: 'X', defaultVersion: '1', supportedVersions: noop, translate: noop, controls: ['kv_layout'], inventory: noop, tritonBackend: { backend: 'vllm', plan: noop } },
  'measurement-backend': { name: 'backend:x', kind: 'measurement-backend', apiVersion: 1, simulated: false, measure: noop },
  'search-strategy': { name: 'search:x', kind: 'search-strategy', apiVersion: 1, create: noop },
  predictor: { name: 'predictor:x', kind: 'predictor', apiVersion: 1, predict: noop },
  'kernel-provider': { name: 'kernels:x', kind: 'kernel-provider', apiVersion: 1, parameters: [], isValid: noop, generate: noop, reference: noop },
  'kernel-generator': { name: 'generator:x', kind: 'kernel-generator', apiVersion: 1, generate: noop },
}

/** The members a plugin of `kind` is checked on, as the checks name them. */
const membersOf = (kind: PluginKind): readonly string[] => [...pluginHead.members, ...pluginHooks[kind].members]
const without = (o: Record<string, unknown>, m: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== m))

describe('pluginHead and pluginHooks, against the zod schemas they replaced', () => {
  const good = GOOD.engine
  // Every member of every kind's shape set to every value of ANY, and left out, on top of a valid plugin of that kind.
  const plugins: unknown[] = [
    ...ANY, ...Object.values(GOOD),
    ...PLUGIN_KINDS.flatMap((kind) => membersOf(kind).flatMap((m) => [...ANY.map((v) => ({ ...GOOD[kind], [m]: v })), without(GOOD[kind], m)])),
    { ...good, name: 'Engine X' }, { ...good, name: '-x' }, { ...good, kind: 'engines' }, { ...good, apiVersion: '1' },
    { ...good, controls: ['kv_layout', 'threads', 3] }, { ...good, controls: [] },
    { ...good, tritonBackend: { backend: 'vllm', plan: noop } }, { ...good, tritonBackend: { backend: 'vLLM' } },
    { ...good, tritonBackend: { plan: 'x' } }, ...ANY.map((v) => ({ ...good, tritonBackend: { backend: v, plan: noop } })),
    Object.assign(Object.create({ translate: noop, supportedVersions: noop }), { name: 'p', kind: 'engine', apiVersion: 1, displayName: 'P', defaultVersion: '1' }),
    { name: 'b', kind: 'measurement-backend', apiVersion: 1, simulated: 'yes', measure: noop },
    { name: 'b', kind: 'kernel-provider', apiVersion: 1, parameters: {}, isValid: noop, generate: 1 },
    ...ANY.map((v) => ({ name: 'k', kind: 'kernel-provider', apiVersion: 1, parameters: v })),
    ...PLUGIN_KINDS.map((kind) => ({ name: 'z', kind, apiVersion: 1 })),
  ]

  it.each(plugins.map((v, i) => [i, typeName(v), v]))('should judge plugin %i (%s) as zod does', (_i, _t, value) => {
    expect(pluginHead(value, [])).toEqual(zodProblems(zodHead, value))
    for (const kind of PLUGIN_KINDS) expect(pluginHooks[kind](value, [])).toEqual(zodProblems(zodHooks[kind], value))
  })

  it('should name the same members as the zod schemas, and accept the valid plugin of each kind', () => {
    expect(pluginHead.members).toEqual(Object.keys(zodHead.shape))
    for (const kind of PLUGIN_KINDS) {
      expect(pluginHooks[kind].members).toEqual(Object.keys(zodHooks[kind].shape))
      expect([...pluginHead(GOOD[kind], []), ...pluginHooks[kind](GOOD[kind], [])]).toEqual([])
      // The valid plugin sets every member its kind is checked on.
      expect(membersOf(kind).filter((m) => !(m in GOOD[kind]))).toEqual([])
    }
  })

  // Plugins near valid ones: a valid plugin of some kind with members replaced by generated values
  // (of the right type or not) and members left out, and arbitrary values besides.
  const memberValue = fc.oneof(
    fc.constantFrom(...ANY),
    // Strings near the rules (names, Triton backend names, kinds): the letters they allow and a few they do not.
    fc.string(), fc.stringMatching(/^[a-z0-9][a-z0-9:._/-]{0,8}$/), fc.stringMatching(/^[a-zA-Z0-9:._/ -]{0,6}$/), fc.constantFrom(...PLUGIN_KINDS),
    fc.integer(), fc.double(), fc.boolean(), fc.constant(noop),
    fc.array(fc.oneof(fc.constantFrom(...CORE_DIMENSION_IDS), fc.string(), fc.integer()), { maxLength: 3 }),
    fc.record({ backend: fc.oneof(fc.stringMatching(/^[a-z0-9_]{1,6}$/), fc.string(), fc.anything()), plan: fc.oneof(fc.constant(noop), fc.anything()) }, { requiredKeys: [] }),
    fc.anything(),
  )
  const nearKindAndPlugin = fc.constantFrom(...PLUGIN_KINDS).chain((kind) => fc.tuple(
    fc.constant(kind),
    fc.dictionary(fc.constantFrom(...membersOf(kind)), memberValue, { maxKeys: 3 }),
    fc.subarray([...membersOf(kind)], { maxLength: 2 }),
  )).map(([kind, replaced, dropped]) => {
    const p: Record<string, unknown> = { ...GOOD[kind], ...replaced }
    for (const m of dropped) delete p[m]
    return [kind, p] as const
  })
  const nearPlugin = nearKindAndPlugin.map(([, p]) => p)
  const anyPlugin = fc.oneof({ arbitrary: nearPlugin, weight: 4 }, { arbitrary: fc.anything(), weight: 1 })

  it('should judge generated plugins as zod does, valid and invalid', () => {
    fc.assert(fc.property(anyPlugin, (value) => {
      expect(pluginHead(value, [])).toEqual(zodProblems(zodHead, value))
      for (const kind of PLUGIN_KINDS) expect(pluginHooks[kind](value, [])).toEqual(zodProblems(zodHooks[kind], value))
    }), { numRuns: 500 })
    // Both sides of the rule are generated: plugins their own kind accepts, and ones it refuses.
    const verdicts = fc.sample(nearKindAndPlugin, 300).map(([kind, p]) => pluginHead(p, []).length + pluginHooks[kind](p, []).length === 0)
    expect(verdicts.filter(Boolean).length).toBeGreaterThan(20)
    expect(verdicts.filter((v) => !v).length).toBeGreaterThan(20)
  })

  it('should find problems in the corpus (the comparison above is not of two empty lists)', () => {
    const failing = plugins.filter((p) => pluginHead(p, []).length > 0 || pluginHooks.engine(p, []).length > 0)
    expect(failing.length).toBeGreaterThan(plugins.length / 2)
    expect(pluginHead({ ...good, apiVersion: -1.5 }, [])).toEqual(['apiVersion: Invalid input: expected int, received number'])
  })
})
