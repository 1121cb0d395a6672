/**
 * A small seeded PRNG whose whole state is four 32-bit integers, so a bandit that samples can be
 * saved mid-run and resumed with exactly the same future draws. xoshiro128** (Blackman & Vigna)
 * seeded through splitmix32; normals by Box-Muller, gammas by Marsaglia-Tsang, betas from two
 * gammas. Math.random is never used: every draw is reproducible from the seed.
 */
import { z } from 'zod'
import { parseWith } from '@kerneltune/core'

// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const PrngStateSchema: z.ZodObject<{
  algorithm: z.ZodLiteral<'xoshiro128**'>
  s: z.ZodTuple<[z.ZodNumber, z.ZodNumber, z.ZodNumber, z.ZodNumber], null>
}> = z.object({
  algorithm: z.literal('xoshiro128**'),
  s: z.tuple([z.number().int(), z.number().int(), z.number().int(), z.number().int()]),
})
export type PrngState = z.output<typeof PrngStateSchema>

const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0

/** splitmix32: spreads any 32-bit seed into well-mixed words (an all-zero state is invalid). */
function splitmix32(seed: number): () => number {
  let x = seed >>> 0
  return () => {
    x = (x + 0x9e3779b9) >>> 0
    let z = x
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
    return (z ^ (z >>> 16)) >>> 0
  }
}

export class Prng {
  private s: [number, number, number, number]

  private constructor(s: [number, number, number, number]) {
    this.s = s
  }

  /** A generator from an integer seed (any finite number; it is folded to 32 bits). */
  static fromSeed(seed: number): Prng {
    const next = splitmix32(Math.trunc(seed) ^ Math.trunc(seed / 2 ** 32))
    const s: [number, number, number, number] = [next(), next(), next(), next()]
    if (s.every((w) => w === 0)) s[0] = 1
    return new Prng(s)
  }

  /** Resumes from a saved state (validated). */
  static fromState(state: unknown): Prng {
    const st = parseWith(PrngStateSchema, state, 'PRNG state')
    const s = st.s.map((w) => w >>> 0) as [number, number, number, number]
    if (s.every((w) => w === 0)) throw parseError()
    return new Prng(s)
  }

  state(): PrngState {
    return { algorithm: 'xoshiro128**', s: [...this.s] }
  }

  /** The next 32-bit unsigned integer. */
  nextU32(): number {
    const s = this.s
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0
    const t = (s[1] << 9) >>> 0
    s[2] = (s[2] ^ s[0]) >>> 0
    s[3] = (s[3] ^ s[1]) >>> 0
    s[1] = (s[1] ^ s[2]) >>> 0
    s[0] = (s[0] ^ s[3]) >>> 0
    s[2] = (s[2] ^ t) >>> 0
    s[3] = rotl(s[3], 11)
    return result
  }

  /** Uniform in [0, 1) with 32 bits of resolution. */
  next(): number {
    return this.nextU32() / 4294967296
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n)
  }

  /** Standard normal (Box-Muller; one of the pair is discarded so the state stays four words). */
  normal(): number {
    const u1 = 1 - this.next() // (0, 1]: log(0) never happens
    const u2 = this.next()
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)
  }

  /** Gamma(shape, 1), Marsaglia & Tsang (2000); shape < 1 by the U^(1/shape) boost. */
  gamma(shape: number): number {
    if (!(shape > 0)) throw new RangeError(`gamma shape must be positive, got ${shape}`)
    if (shape < 1) return this.gamma(shape + 1) * this.next() ** (1 / shape)
    const d = shape - 1 / 3
    const c = 1 / Math.sqrt(9 * d)
    for (;;) {
      let x: number
      let v: number
      do {
        x = this.normal()
        v = 1 + c * x
      } while (v <= 0)
      v = v * v * v
      const u = this.next()
      if (u < 1 - 0.0331 * x ** 4) return d * v
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v
    }
  }

  /** Beta(a, b) as X/(X+Y) with X ~ Gamma(a), Y ~ Gamma(b). */
  beta(a: number, b: number): number {
    const x = this.gamma(a)
    const y = this.gamma(b)
    return x / (x + y)
  }
}

function parseError() {
  return new RangeError('PRNG state must not be all zeros')
}
