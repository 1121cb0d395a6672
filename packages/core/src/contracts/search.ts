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

/** A running search: ask for configurations, tell their outcomes, serialise at any time. */
export interface Searcher {
  ask(count?: number): SearchConfig[]
  tell(observation: SearchObservation): void
  best(): { config: SearchConfig; value: number } | undefined
  toJSON(): unknown
}

export interface SearchSpaceDefinition {
  readonly params: readonly SearchParam[]
  /** A predicate; a configuration for which it returns false is never suggested. */
  readonly isValid?: (config: SearchConfig) => boolean
  /** Or the finite list of valid configurations. */
  readonly validConfigs?: readonly SearchConfig[]
}

export interface SearchStrategyPlugin extends PluginBase<'search-strategy'> {
  create(space: SearchSpaceDefinition, options: { seed: number; [key: string]: unknown }): MaybePromise<Searcher>
  restore?(space: SearchSpaceDefinition, state: unknown): MaybePromise<Searcher>
}
