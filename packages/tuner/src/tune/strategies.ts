/** The search strategies Tier 2 offers: Bayesian optimisation ('bo', the default), TPE, random search, and the tuner's own seeded random fallback. */
import { bayesianOptimizationStrategy, randomSearchStrategy, tpeStrategy } from '@kerneltune/bayesian-optimizer'
import type { SearchStrategyPlugin } from '@kerneltune/core'
import { randomStrategy } from './random-strategy.ts'

export const DEFAULT_STRATEGY = 'bo'

export function searchStrategies(): SearchStrategyPlugin[] {
  return [bayesianOptimizationStrategy(), tpeStrategy(), randomSearchStrategy(), randomStrategy()]
}
