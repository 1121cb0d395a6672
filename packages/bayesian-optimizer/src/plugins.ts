/** The three `search-strategy` plugins for the core registry. */
import { CONTRACT_VERSIONS, type SearchBudget, type SearchConfig, type SearchSpaceDefinition, type SearchStrategyPlugin } from '@kerneltune/core'
import type { BoOptions } from './bo.ts'
import { createSearch, restoreSearch, type Search, type StrategyName } from './searcher.ts'
import type { TpeOptions } from './tpe.ts'

type Options = { seed: number; budget?: SearchBudget; seedPoints?: readonly SearchConfig[]; [key: string]: unknown }

type StrategyPlugin = SearchStrategyPlugin & { create(space: SearchSpaceDefinition, options: Options): Search }

function plugin(strategy: StrategyName, description: string): StrategyPlugin {
  return {
    name: strategy,
    kind: 'search-strategy',
    apiVersion: CONTRACT_VERSIONS['search-strategy'],
    description,
    create: (space, options) =>
      createSearch({
        strategy,
        space,
        seed: options.seed,
        ...(options.budget ? { budget: options.budget } : {}),
        ...(options.seedPoints ? { seedPoints: options.seedPoints } : {}),
        ...(options.bo ? { bo: options.bo as BoOptions } : {}),
        ...(options.tpe ? { tpe: options.tpe as TpeOptions } : {}),
      }),
    restore: (space, state) => restoreSearch(space, state),
  }
}

/** Gaussian-process Bayesian optimisation (Matérn 5/2, EI or UCB). Options: `bo: BoOptions`. */
export const bayesianOptimizationStrategy = (): StrategyPlugin => plugin('bo', 'Gaussian-process Bayesian optimisation (Matérn 5/2 ARD, expected improvement or UCB) over the valid configurations')
/** Tree-structured Parzen estimator. Options: `tpe: TpeOptions`. */
export const tpeStrategy = (): StrategyPlugin => plugin('tpe', 'Tree-structured Parzen estimator over the valid configurations')
/** Uniform random search without repeats. */
export const randomSearchStrategy = (): StrategyPlugin => plugin('random', 'Uniform random search over the valid configurations, without repeats')
