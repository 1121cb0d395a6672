import type { MaybePromise, PluginBase } from './plugin.ts'

export type ParamValue = string | number | boolean

/** A parameter of a discrete search space. */
export interface SearchParam {
  readonly name: string
  /** categorical: unordered; ordinal: ordered values; integer: whole numbers in order. */
  readonly type: 'categorical' | 'ordinal' | 'integer'
  readonly values: readonly ParamValue[]
}

export type SearchConfig = Readonly<Record<string, ParamValue>>

/** The outcome of evaluating a configuration. */
export interface SearchObservation {
  readonly config: SearchConfig
  /** Objective to minimise; absent when the evaluation failed. */
  readonly value?: number
  /** Variance of `value` from repeated measurements, when known. */
  readonly variance?: number
  readonly failed?: boolean
}

/** Limits on a search; whichever is reached first ends it. */
export interface SearchBudget {
  /** Evaluations (told plus pending), seed points included. */
  readonly evaluations?: number
  /** Wall-clock seconds, accumulated across serialise/restore. */
  readonly seconds?: number
}

/** A running search: ask for configurations, tell their outcomes, serialise at any time. */
export interface Searcher {
  /** Up to `count` new valid configurations (never one suggested before); fewer, or none, once the budget or the space runs out. */
  ask(count?: number): SearchConfig[]
  tell(observation: SearchObservation): void
  best(): { config: SearchConfig; value: number } | undefined
  toJSON(): unknown
  /** True once the budget is spent or every valid configuration has been suggested. */
  done?(): boolean
  /** Queues known good configurations (e.g. Tier 1 Pareto points) to be asked before any model-driven suggestion. */
  seed?(points: readonly SearchConfig[]): void
}

export interface SearchSpaceDefinition {
  readonly params: readonly SearchParam[]
  /** A predicate; a configuration for which it returns false is never suggested. */
  readonly isValid?: (config: SearchConfig) => boolean
  /** Or the finite list of valid configurations. */
  readonly validConfigs?: readonly SearchConfig[]
}

export interface SearchStrategyPlugin extends PluginBase<'search-strategy'> {
  /** Options every strategy accepts: `seed`, `budget?: SearchBudget`, `seedPoints?: SearchConfig[]`; others are strategy-specific. */
  create(space: SearchSpaceDefinition, options: { seed: number; budget?: SearchBudget; seedPoints?: readonly SearchConfig[]; [key: string]: unknown }): MaybePromise<Searcher>
  restore?(space: SearchSpaceDefinition, state: unknown): MaybePromise<Searcher>
}
