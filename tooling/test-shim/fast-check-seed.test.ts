import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { DEFAULT_FC_SEED, resolveFastCheckSeed } from './fast-check-seed.ts'

// The test setup (vitest preset, Bun preload, Deno shim) must have pinned fast-check's seed
// before this file runs; without it every fc.assert draws a fresh random seed and CI is a lottery.
describe('fast-check seed set by the test setup', () => {
  it('should be the fixed seed, or the one KERNELTUNE_FC_SEED names', () => {
    const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {}
    expect(fc.readConfigureGlobal().seed).toBe(resolveFastCheckSeed(env).seed)
  })

  it('should make two samples of the same arbitrary identical', () => {
    expect(fc.sample(fc.integer(), 8)).toEqual(fc.sample(fc.integer(), 8))
  })
})

describe('resolveFastCheckSeed', () => {
  it('should use the fixed seed when unset, a given integer, or a fresh one for random', () => {
    expect(resolveFastCheckSeed({})).toEqual({ seed: DEFAULT_FC_SEED, source: 'default' })
    expect(resolveFastCheckSeed({ KERNELTUNE_FC_SEED: ' 293357857 ' })).toEqual({ seed: 293357857, source: 'env' })
    expect(resolveFastCheckSeed({ KERNELTUNE_FC_SEED: 'random' }, () => 0.5)).toEqual({ seed: 0x3fffffff, source: 'random' })
  })

  it('should refuse a seed that is not an integer and say how to fix it', () => {
    expect(() => resolveFastCheckSeed({ KERNELTUNE_FC_SEED: 'abc' })).toThrow(/integer or 'random'/)
  })
})
