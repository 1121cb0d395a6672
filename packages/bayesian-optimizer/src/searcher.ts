/**
 * The ask/tell engine shared by every strategy: budgets, seed points, pending configurations,
 * failures, best-so-far, and a JSON state that restores to a search which continues exactly as
 * if it had never stopped (same PRNG state, same observations, same GP hyperparameters).
 */
import { KerneltuneError, parseWith, type SearchBudget, type SearchConfig, type SearchObservation, type SearchSpaceDefinition, type Searcher } from '@kerneltune/core'
import { z } from 'zod'
import { boProposer, type BoOptions } from './bo.ts'
import { createRng, hashSeed, type Rng } from './random.ts'
import { randomProposer } from './random-search.ts'
import { createSpace, type Indices, type Space, type SpaceOptions } from './space.ts'
import type { Observed, Proposer } from './strategy.ts'
import { tpeProposer, type TpeOptions } from './tpe.ts'

export const STRATEGIES = ['bo', 'tpe', 'random'] as const
export type StrategyName = (typeof STRATEGIES)[number]

export interface CreateSearchOptions extends SpaceOptions {
  readonly strategy: StrategyName
  readonly space: SearchSpaceDefinition
  readonly seed: number
  readonly budget?: SearchBudget
  /** Known good configurations (e.g. Tier 1 Pareto points), asked first. */
  readonly seedPoints?: readonly SearchConfig[]
  readonly bo?: BoOptions
  readonly tpe?: TpeOptions
  /** Clock in milliseconds, for the wall-clock budget (default Date.now). */
  readonly now?: () => number
}

export interface Search extends Searcher {
  readonly strategy: StrategyName
  /** Observations told so far, in order. */
  observations(): readonly SearchObservation[]
  /** Configurations asked and not yet told. */
  pending(): readonly SearchConfig[]
  /** Evaluations used: told plus pending. */
  evaluations(): number
  elapsedSeconds(): number
  done(): boolean
  seed(points: readonly SearchConfig[]): void
  toJSON(): SearchState
}

const ConfigSchema: z.ZodRecord<z.ZodString, z.ZodUnion<readonly [z.ZodString, z.ZodNumber, z.ZodBoolean]>> = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const SearchStateSchema: z.ZodObject<{
  format: z.ZodLiteral<'kerneltune.search-state'>
  version: z.ZodLiteral<1>
  strategy: z.ZodEnum<{ [S in StrategyName]: S }>
  seed: z.ZodNumber
  fingerprint: z.ZodString
  budget: z.ZodObject<{ evaluations: z.ZodOptional<z.ZodNumber>; seconds: z.ZodOptional<z.ZodNumber> }>
  options: z.ZodObject<{ bo: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>; tpe: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>> }>
  rng: z.ZodNumber
  elapsedSeconds: z.ZodNumber
  observations: z.ZodArray<z.ZodObject<{
    config: typeof ConfigSchema
    value: z.ZodOptional<z.ZodNumber>
    variance: z.ZodOptional<z.ZodNumber>
    failed: z.ZodOptional<z.ZodBoolean>
  }>>
  pending: z.ZodArray<typeof ConfigSchema>
  seedQueue: z.ZodArray<typeof ConfigSchema>
  model: z.ZodUnknown
}> = z.object({
  format: z.literal('kerneltune.search-state'),
  version: z.literal(1),
  strategy: z.enum(STRATEGIES),
  seed: z.number(),
  fingerprint: z.string(),
  budget: z.object({ evaluations: z.number().optional(), seconds: z.number().optional() }),
  options: z.object({ bo: z.record(z.string(), z.unknown()).optional(), tpe: z.record(z.string(), z.unknown()).optional() }),
  rng: z.number().int(),
  elapsedSeconds: z.number(),
  observations: z.array(z.object({ config: ConfigSchema, value: z.number().optional(), variance: z.number().optional(), failed: z.boolean().optional() })),
  pending: z.array(ConfigSchema),
  seedQueue: z.array(ConfigSchema),
  model: z.unknown(),
})
export type SearchState = z.infer<typeof SearchStateSchema>

function fnv(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h.toString(16).padStart(8, '0')
}

function makeProposer(strategy: StrategyName, opts: { bo?: BoOptions; tpe?: TpeOptions }, model: unknown): Proposer {
  if (strategy === 'bo') return boProposer(opts.bo, model)
  if (strategy === 'tpe') return tpeProposer(opts.tpe)
  return randomProposer()
}

interface Internal {
  strategy: StrategyName
  seed: number
  budget: SearchBudget
  options: { bo?: BoOptions; tpe?: TpeOptions }
  rng: Rng
  elapsedSeconds: number
  observations: SearchObservation[]
  pending: SearchConfig[]
  seedQueue: SearchConfig[]
  model: unknown
}

function build(space: Space, s: Internal, now: () => number): Search {
  const proposer = makeProposer(s.strategy, s.options, s.model)
  const fingerprint = fnv(space.fingerprint)
  const started = now()
  const observed: Observed[] = []
  const taken = new Set<string>()
  const pendingIdx: Indices[] = []
  const need = (config: SearchConfig, what: string): Indices => {
    const idx = space.toIndices(config)
    if (!idx || !space.isValid(idx)) throw new KerneltuneError('INVALID_INPUT', `${what} ${JSON.stringify(config)} is not a valid configuration of this search space`)
    return idx
  }
  const record = (o: SearchObservation) => {
    const idx = need(o.config, 'the told configuration')
    const failed = o.failed === true || o.value === undefined || !Number.isFinite(o.value)
    observed.push({ idx, failed, ...(failed ? {} : { value: o.value!, ...(o.variance !== undefined ? { variance: o.variance } : {}) }) })
    taken.add(space.key(idx))
    observedKeys.add(space.key(idx))
  }
  const observedKeys = new Set<string>()
  s.observations.forEach(record)
  for (const c of s.pending) {
    const idx = need(c, 'the pending configuration')
    pendingIdx.push(idx)
    taken.add(space.key(idx))
  }
  const elapsed = () => s.elapsedSeconds + (now() - started) / 1000
  const evaluations = () => s.observations.length + s.pending.length
  const exhausted = () =>
    (s.budget.evaluations !== undefined && evaluations() >= s.budget.evaluations) ||
    (s.budget.seconds !== undefined && elapsed() >= s.budget.seconds) ||
    (space.finite !== undefined && taken.size >= space.finite.length)

  const search: Search = {
    strategy: s.strategy,
    ask(count = 1) {
      if (!Number.isInteger(count) || count < 1) throw new KerneltuneError('INVALID_INPUT', `ask(count) needs a whole number of at least 1, got ${count}`)
      if (exhausted()) return []
      const room = s.budget.evaluations === undefined ? count : Math.min(count, s.budget.evaluations - evaluations())
      const picks: Indices[] = []
      while (picks.length < room && s.seedQueue.length) {
        const idx = space.toIndices(s.seedQueue.shift()!)
        if (idx && space.isValid(idx) && !taken.has(space.key(idx))) picks.push(idx), taken.add(space.key(idx))
      }
      if (picks.length < room) {
        const ctx = { space, rng: s.rng, observations: observed, pending: [...pendingIdx, ...picks], taken }
        picks.push(...proposer.propose(ctx, room - picks.length))
        s.model = proposer.state()
      }
      const configs = picks.map((idx) => space.toConfig(idx))
      pendingIdx.push(...picks)
      s.pending.push(...configs)
      return configs
    },
    tell(o) {
      const idx = need(o.config, 'the told configuration')
      const k = space.key(idx)
      if (observedKeys.has(k)) {
        throw new KerneltuneError('CONFLICT', `${JSON.stringify(o.config)} was already told; aggregate repeated measurements into one observation (value = mean, variance = variance of the mean)`)
      }
      const at = pendingIdx.findIndex((p) => space.key(p) === k)
      if (at >= 0) pendingIdx.splice(at, 1), s.pending.splice(at, 1)
      const clean: SearchObservation = {
        config: space.toConfig(idx),
        ...(o.value !== undefined && Number.isFinite(o.value) && o.failed !== true ? { value: o.value } : { failed: true }),
        ...(o.variance !== undefined && o.failed !== true && o.value !== undefined ? { variance: o.variance } : {}),
      }
      s.observations.push(clean)
      record(clean)
    },
    best() {
      let best: { config: SearchConfig; value: number } | undefined
      for (const o of s.observations) if (!o.failed && o.value !== undefined && (!best || o.value < best.value)) best = { config: o.config, value: o.value }
      return best
    },
    seed(points) {
      for (const p of points) need(p, 'the seed point')
      s.seedQueue.push(...points)
    },
    observations: () => s.observations,
    pending: () => s.pending,
    evaluations,
    elapsedSeconds: elapsed,
    done: exhausted,
    toJSON: () => ({
      format: 'kerneltune.search-state',
      version: 1,
      strategy: s.strategy,
      seed: s.seed,
      fingerprint,
      budget: { ...s.budget },
      options: JSON.parse(JSON.stringify(s.options)) as SearchState['options'],
      rng: s.rng.state,
      elapsedSeconds: elapsed(),
      observations: s.observations.map((o) => ({ ...o })),
      pending: [...s.pending],
      seedQueue: [...s.seedQueue],
      model: JSON.parse(JSON.stringify(s.model ?? null)) as unknown,
    }),
  }
  return search
}

/** Starts a search. */
export function createSearch(options: CreateSearchOptions): Search {
  if (!STRATEGIES.includes(options.strategy)) throw new KerneltuneError('INVALID_INPUT', `unknown strategy "${options.strategy}"; use one of ${STRATEGIES.join(', ')}`)
  if (!Number.isFinite(options.seed)) throw new KerneltuneError('INVALID_INPUT', `seed must be a number, got ${options.seed}`)
  const space = createSpace(options.space, options)
  const search = build(
    space,
    {
      strategy: options.strategy,
      seed: options.seed,
      budget: options.budget ?? {},
      options: { ...(options.bo ? { bo: options.bo } : {}), ...(options.tpe ? { tpe: options.tpe } : {}) },
      rng: createRng(hashSeed(options.seed)),
      elapsedSeconds: 0,
      observations: [],
      pending: [],
      seedQueue: [],
      model: null,
    },
    options.now ?? Date.now,
  )
  if (options.seedPoints?.length) search.seed(options.seedPoints)
  return search
}

/** Continues a search from `toJSON()` output, over the same space definition. */
export function restoreSearch(spaceDef: SearchSpaceDefinition, state: unknown, options: SpaceOptions & { now?: () => number } = {}): Search {
  const st = parseWith(SearchStateSchema, state, 'search state')
  const space = createSpace(spaceDef, options)
  if (fnv(space.fingerprint) !== st.fingerprint) {
    throw new KerneltuneError('INVALID_INPUT', 'the search state was saved over a different search space (parameters, values or valid set differ); restore it with the space it was created with')
  }
  return build(
    space,
    {
      strategy: st.strategy,
      seed: st.seed,
      budget: st.budget,
      options: st.options as Internal['options'],
      rng: createRng(st.rng),
      elapsedSeconds: st.elapsedSeconds,
      observations: st.observations.map((o) => ({ ...o })),
      pending: st.pending,
      seedQueue: st.seedQueue,
      model: st.model,
    },
    options.now ?? Date.now,
  )
}
