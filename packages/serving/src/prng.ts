/**
 * A small seeded PRNG (mulberry32) so open-loop arrival schedules, synthetic prompts and the
 * interleaved order of a sweep are reproducible from a seed on every runtime.
 */

export type Random = () => number

/** Uniform numbers in [0, 1) from a 32-bit seed. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

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
