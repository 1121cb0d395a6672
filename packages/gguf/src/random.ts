/**
 * Seeded random numbers for synthetic weights. Each tensor gets its own stream, derived from the
 * model seed and the tensor name, so a tensor's values do not depend on write order.
 */

export { mulberry32 } from '@kerneltune/core'

/** A 32-bit FNV-1a hash of a string mixed with a seed. */
export function hashSeed(seed: number, name: string): number {
  let h = (0x811c9dc5 ^ (seed >>> 0)) >>> 0
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/** Fills `out` with uniform values in [-scale, scale). */
export function fillUniform(out: Float32Array, next: () => number, scale: number): Float32Array {
  for (let i = 0; i < out.length; i++) out[i] = (next() * 2 - 1) * scale
  return out
}
