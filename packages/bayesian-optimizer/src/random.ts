/**
 * A small seeded PRNG (mulberry32) whose whole state is one 32-bit integer, so a serialised search
 * restores to exactly the same random stream.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number
  /** Uniform integer in [0, n). */
  int(n: number): number
  /** Standard normal (Box–Muller, no cached second value so the state stays one integer). */
  normal(): number
  readonly state: number
}

export function createRng(seed: number): Rng {
  let s = seed >>> 0
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (n) => Math.floor(next() * n),
    normal() {
      const u = Math.max(next(), 1e-300)
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
    },
    get state() {
      return s
    },
  }
}

/** Mixes a user seed so that nearby seeds (0, 1, 2…) give unrelated streams. */
export function hashSeed(seed: number): number {
  let h = (Math.floor(seed) ^ 0x9e3779b9) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}
