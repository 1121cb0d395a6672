/**
 * The search space as the strategies see it: every configuration is a vector of value indices
 * (one per parameter), with a canonical string key, a numeric encoding for the GP, and, when the
 * space is small enough or given as a list, the finite set of valid configurations.
 */
import { KerneltuneError, type ParamValue, type SearchConfig, type SearchParam, type SearchSpaceDefinition } from '@kerneltune/core'
import type { Rng } from './random.ts'

export type Indices = readonly number[]

export interface Space {
  readonly params: readonly SearchParam[]
  /** Width of the numeric encoding. */
  readonly dim: number
  /** Every valid configuration, when known (a given list, or an enumerable product). */
  readonly finite?: readonly Indices[]
  /** Encoding of `finite`, row-major (finite.length × dim). */
  readonly finiteEncoded?: Float64Array
  key(idx: Indices): string
  /** Position of a configuration in `finite`, or -1. */
  position(idx: Indices): number
  toIndices(config: SearchConfig): Indices | undefined
  toConfig(idx: Indices): SearchConfig
  isValid(idx: Indices): boolean
  encode(idx: Indices, out: Float64Array, offset: number): void
  /** A uniformly random valid configuration not in `exclude` (rejection sampling for predicate spaces). */
  sample(rng: Rng, exclude: ReadonlySet<string>): Indices | undefined
  /** Valid configurations that differ from `idx` in one parameter. */
  neighbours(idx: Indices): Indices[]
  /**
   * Lengthscale sharing for the GP (gp.ts, GpLayout): one group per parameter, so a categorical
   * parameter's one-hot columns share one lengthscale, each scaled by 1/√2.
   */
  readonly layout: { readonly group: Int32Array; readonly scale: Float64Array; readonly groups: number }
  /** A short fingerprint of the parameters, checked on restore. */
  readonly fingerprint: string
}

export interface SpaceOptions {
  /** Enumerate predicate spaces whose Cartesian product is at most this large (default 200000). */
  readonly enumerateLimit?: number
}

const sameValue = (a: ParamValue, b: ParamValue) => a === b || (typeof a !== typeof b && String(a) === String(b))

function checkParams(params: readonly SearchParam[]): void {
  if (params.length === 0) throw new KerneltuneError('INVALID_INPUT', 'the search space has no parameters; give at least one')
  const names = new Set<string>()
  for (const p of params) {
    if (names.has(p.name)) throw new KerneltuneError('INVALID_INPUT', `parameter "${p.name}" appears twice in the search space`)
    names.add(p.name)
    if (p.values.length === 0) throw new KerneltuneError('INVALID_INPUT', `parameter "${p.name}" has no values`)
    if (p.type === 'integer' && p.values.some((v) => typeof v !== 'number' || !Number.isInteger(v))) {
      throw new KerneltuneError('INVALID_INPUT', `parameter "${p.name}" is declared integer but has non-integer values; declare it ordinal or categorical`)
    }
  }
}

export function createSpace(def: SearchSpaceDefinition, options: SpaceOptions = {}): Space {
  const params = def.params
  checkParams(params)
  const sizes = params.map((p) => p.values.length)
  const valueIndex = params.map((p) => new Map(p.values.map((v, i) => [String(v), i])))

  // Encoding columns: categorical one-hot (one column when binary), ordinal by rank, integer by value.
  const columns: { param: number; kind: 'onehot' | 'scalar'; value?: number; scale?: Float64Array }[] = []
  params.forEach((p, i) => {
    if (p.values.length < 2) return
    if (p.type === 'categorical' && p.values.length > 2) {
      for (let v = 0; v < p.values.length; v++) columns.push({ param: i, kind: 'onehot', value: v })
    } else if (p.type === 'integer') {
      const nums = p.values as number[]
      const lo = Math.min(...nums)
      const hi = Math.max(...nums)
      columns.push({ param: i, kind: 'scalar', scale: Float64Array.from(nums, (v) => (hi > lo ? (v - lo) / (hi - lo) : 0)) })
    } else {
      const n = p.values.length
      columns.push({ param: i, kind: 'scalar', scale: Float64Array.from({ length: n }, (_, v) => v / (n - 1)) })
    }
  })
  const dim = columns.length
  const groupOf = new Map<number, number>()
  for (const col of columns) if (!groupOf.has(col.param)) groupOf.set(col.param, groupOf.size)
  const layout = {
    group: Int32Array.from(columns, (col) => groupOf.get(col.param)!),
    scale: Float64Array.from(columns, (col) => (col.kind === 'onehot' ? Math.SQRT1_2 : 1)),
    groups: groupOf.size,
  }

  const key = (idx: Indices) => idx.join(',')
  const toConfig = (idx: Indices): SearchConfig => Object.fromEntries(params.map((p, i) => [p.name, p.values[idx[i]!]!]))
  const toIndices = (config: SearchConfig): Indices | undefined => {
    const out: number[] = []
    for (let i = 0; i < params.length; i++) {
      const v = config[params[i]!.name]
      if (v === undefined) return undefined
      let j = valueIndex[i]!.get(String(v))
      if (j === undefined || !sameValue(params[i]!.values[j]!, v)) j = params[i]!.values.findIndex((x) => sameValue(x, v))
      if (j < 0) return undefined
      out.push(j)
    }
    return out
  }
  const predicate = def.isValid
  const predicateOk = (idx: Indices) => !predicate || predicate(toConfig(idx))

  let finite: Indices[] | undefined
  if (def.validConfigs) {
    finite = []
    const seen = new Set<string>()
    def.validConfigs.forEach((c, n) => {
      const idx = toIndices(c)
      if (!idx) throw new KerneltuneError('INVALID_INPUT', `valid configuration #${n} (${JSON.stringify(c)}) has a value outside the declared parameters`)
      const k = key(idx)
      if (!seen.has(k) && predicateOk(idx)) finite!.push(idx), seen.add(k)
    })
  } else {
    const product = sizes.reduce((a, b) => a * b, 1)
    if (product <= (options.enumerateLimit ?? 200_000)) {
      finite = []
      const idx = new Array<number>(params.length).fill(0)
      for (let n = 0; n < product; n++) {
        if (predicateOk(idx)) finite.push(idx.slice())
        for (let i = params.length - 1; i >= 0; i--) {
          if (++idx[i]! < sizes[i]!) break
          idx[i] = 0
        }
      }
    }
  }
  if (finite && finite.length === 0) throw new KerneltuneError('INVALID_INPUT', 'no configuration of the search space is valid; check the constraints')
  const positions = finite ? new Map(finite.map((idx, n) => [key(idx), n])) : undefined

  const encode = (idx: Indices, out: Float64Array, offset: number) => {
    for (let c = 0; c < dim; c++) {
      const col = columns[c]!
      const v = idx[col.param]!
      out[offset + c] = col.kind === 'onehot' ? (v === col.value ? 1 : 0) : col.scale![v]!
    }
  }
  let finiteEncoded: Float64Array | undefined
  if (finite) {
    finiteEncoded = new Float64Array(finite.length * dim)
    finite.forEach((idx, n) => encode(idx, finiteEncoded!, n * dim))
  }
  const isValid = (idx: Indices) =>
    idx.length === params.length && idx.every((v, i) => Number.isInteger(v) && v >= 0 && v < sizes[i]!) && (positions ? positions.has(key(idx)) : predicateOk(idx))

  return {
    params,
    dim,
    finite,
    finiteEncoded,
    key,
    position: (idx) => positions?.get(key(idx)) ?? -1,
    toIndices,
    toConfig,
    isValid,
    encode,
    sample(rng, exclude) {
      if (finite) {
        if (exclude.size >= finite.length) return undefined
        // Rejection first (cheap while much of the space is free); a scan of the remainder when
        // rejection keeps hitting taken configurations.
        for (let tries = 0; tries < 64; tries++) {
          const idx = finite[rng.int(finite.length)]!
          if (!exclude.has(key(idx))) return idx
        }
        const free = finite.filter((idx) => !exclude.has(key(idx)))
        return free.length ? free[rng.int(free.length)] : undefined
      }
      for (let attempt = 0; attempt < 100_000; attempt++) {
        const idx = sizes.map((n) => rng.int(n))
        if (!exclude.has(key(idx)) && predicateOk(idx)) return idx
      }
      return undefined
    },
    layout,
    neighbours(idx) {
      const out: Indices[] = []
      for (let i = 0; i < params.length; i++) {
        for (let v = 0; v < sizes[i]!; v++) {
          if (v === idx[i]) continue
          const n = idx.slice()
          n[i] = v
          if (isValid(n)) out.push(n)
        }
      }
      return out
    },
    fingerprint: params.map((p) => `${p.name}:${p.type}:${p.values.join('|')}`).join(';') + (finite ? `#${finite.length}` : ''),
  }
}
