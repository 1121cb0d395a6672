/** Uniform random search over the valid configurations, without repeats. */
import type { Proposer } from './strategy.ts'
import { randomPicks } from './strategy.ts'

export function randomProposer(): Proposer {
  return { propose: randomPicks, state: () => null }
}
