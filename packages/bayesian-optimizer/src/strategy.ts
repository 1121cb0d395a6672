/** What the shared ask/tell engine hands a strategy, and what a strategy gives back. */
import type { Rng } from './random.ts'
import type { Indices, Space } from './space.ts'

export interface Observed {
  readonly idx: Indices
  /** Objective (lower is better); undefined when failed. */
  readonly value?: number
  readonly variance?: number
  readonly failed: boolean
}

export interface ProposeContext {
  readonly space: Space
  readonly rng: Rng
  readonly observations: readonly Observed[]
  /** Asked but not yet told. */
  readonly pending: readonly Indices[]
  /** Keys of every configuration already observed, pending or chosen; never propose these. */
  readonly taken: Set<string>
}

export interface Proposer {
  /** Up to `count` distinct valid configurations not in `ctx.taken`. */
  propose(ctx: ProposeContext, count: number): Indices[]
  /** Strategy state that must survive serialisation (plain JSON). */
  state(): unknown
}

/** Random fill used by every strategy for its initial design and as a fallback. */
export function randomPicks(ctx: ProposeContext, count: number): Indices[] {
  const out: Indices[] = []
  while (out.length < count) {
    const idx = ctx.space.sample(ctx.rng, ctx.taken)
    if (!idx) break
    ctx.taken.add(ctx.space.key(idx))
    out.push(idx)
  }
  return out
}
