/**
 * Seeded randomness (core's mulberry32) so open-loop arrival schedules, synthetic prompts and the
 * interleaved order of a sweep are reproducible from a seed on every runtime.
 */

import { mulberry32 } from '@kerneltune/core'

export type Random = () => number

/** Uniform numbers in [0, 1) from a 32-bit seed: core's mulberry32, the same stream on every runtime. */
export const seededRandom = (seed: number): Random => mulberry32(seed)

/** An exponential variate with the given rate (per second), in seconds: Poisson inter-arrival times. */
export function exponential(random: Random, rate: number): number {
  // 1 - u is in (0, 1], so the log is finite.
  return -Math.log(1 - random()) / rate
}

/** Integer in [lo, hi] inclusive. */
export function uniformInt(random: Random, lo: number, hi: number): number {
  return lo + Math.floor(random() * (hi - lo + 1))
}

/** A Fisher–Yates shuffle into a new array. */
export function shuffled<T>(random: Random, xs: readonly T[]): T[] {
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}
