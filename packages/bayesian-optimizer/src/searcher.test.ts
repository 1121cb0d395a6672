import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createRegistry, type SearchConfig } from '@kerneltune/core'
import { createSearch, restoreSearch, STRATEGIES, type Search, type StrategyName } from './searcher.ts'
import { bayesianOptimizationStrategy, randomSearchStrategy, tpeStrategy } from './plugins.ts'
import { bowl, CONSTRAINED, constrainedOk } from './test-spaces.ts'

const key = (c: SearchConfig) => JSON.stringify(c)
// Some configurations fail (as a kernel that does not compile would).
const evaluate = (c: SearchConfig) => (c.layout === 'col' && c.stages === 3 ? undefined : bowl(c))

/** Asks in batches of `q`, tells every result (with a variance), and returns what was suggested. */
function drive(search: Search, steps: number, q = 1): SearchConfig[] {
  const asked: SearchConfig[] = []
  for (let i = 0; i < steps; i++) {
    const configs = search.ask(q)
    for (const config of configs) {
      const v = evaluate(config)
      search.tell(v === undefined ? { config, failed: true } : { config, value: v, variance: 1e-4 * v })
    }
    asked.push(...configs)
  }
  return asked
}

describe('createSearch', () => {
  for (const strategy of STRATEGIES) {
    it(`should resume from JSON with identical suggestions (${strategy})`, () => {
      const make = () => createSearch({ strategy, space: CONSTRAINED, seed: 42, bo: { initial: 6 }, tpe: { initial: 6 } })
      const straight = make()
      const full = drive(straight, 24, 2)
      const first = make()
      const head = drive(first, 10, 2)
      const saved = JSON.parse(JSON.stringify(first.toJSON())) as unknown
      const resumed = restoreSearch(CONSTRAINED, saved)
      const tail = drive(resumed, 14, 2)
      expect([...head, ...tail].map(key)).toEqual(full.map(key))
      expect(resumed.best()).toEqual(straight.best())
    })

    it(`should never suggest a configuration twice, until the space is exhausted (${strategy})`, () => {
      const search = createSearch({ strategy, space: CONSTRAINED, seed: 5, bo: { initial: 5, pool: 40 } })
      const size = 360
      const asked = drive(search, 200, 3)
      expect(new Set(asked.map(key)).size).toBe(asked.length)
      expect(asked.every(constrainedOk)).toBe(true)
      expect(asked.length).toBeLessThan(size)
      expect(search.done()).toBe(true)
      expect(search.ask(1)).toEqual([])
    })
  }

  it('should never suggest an invalid configuration, for any seed, strategy and batch size (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), fc.constantFrom<StrategyName>('bo', 'tpe', 'random'), fc.integer({ min: 1, max: 4 }), fc.boolean(), (seed, strategy, q, enumerate) => {
        const search = createSearch({ strategy, space: CONSTRAINED, seed, bo: { initial: 4, pool: 60 }, tpe: { initial: 4 }, enumerateLimit: enumerate ? 200_000 : 10 })
        const asked = drive(search, 8, q)
        return asked.length === 8 * q && asked.every(constrainedOk) && new Set(asked.map(key)).size === asked.length
      }),
      { numRuns: 25 },
    )
  })

  it('should keep pending configurations out of later asks and honour the evaluation budget', () => {
    const search = createSearch({ strategy: 'bo', space: CONSTRAINED, seed: 1, budget: { evaluations: 9 }, bo: { initial: 2 } })
    const a = search.ask(4)
    const b = search.ask(4)
    expect(new Set([...a, ...b].map(key)).size).toBe(8)
    expect(search.ask(4)).toHaveLength(1)
    expect(search.done()).toBe(true)
    expect(search.pending()).toHaveLength(9)
  })

  it('should stop at the wall-clock budget, counting time from before a restore', () => {
    let now = 0
    const search = createSearch({ strategy: 'random', space: CONSTRAINED, seed: 1, budget: { seconds: 10 }, now: () => now })
    expect(search.ask(1)).toHaveLength(1)
    now = 6000
    const state = search.toJSON()
    now = 100_000
    const resumed = restoreSearch(CONSTRAINED, state, { now: () => now })
    expect(resumed.done()).toBe(false)
    now = 104_500
    expect(resumed.done()).toBe(true)
    expect(resumed.ask(1)).toEqual([])
  })

  it('should ask seed points first, skipping invalid or repeated ones', () => {
    const good = { tile: 64, warps: 2, layout: 'tiled', stages: 2 }
    const search = createSearch({ strategy: 'bo', space: CONSTRAINED, seed: 3, seedPoints: [good, good] })
    expect(search.ask(2)[0]).toEqual(good)
    expect(() => search.seed([{ tile: 8, warps: 5, layout: 'row', stages: 1 }])).toThrow(/not a valid configuration/)
  })

  it('should record failures, leave them out of best(), and reject duplicate or invalid tells', () => {
    const search = createSearch({ strategy: 'random', space: CONSTRAINED, seed: 2 })
    const [a, b] = search.ask(2)
    search.tell({ config: a!, failed: true })
    expect(search.best()).toBeUndefined()
    search.tell({ config: b!, value: 3 })
    expect(search.best()).toEqual({ config: b, value: 3 })
    expect(search.toJSON().observations[0]).toEqual({ config: a, failed: true })
    expect(() => search.tell({ config: b!, value: 2 })).toThrow(/already told/)
    expect(() => search.tell({ config: { tile: 8, warps: 5, layout: 'row', stages: 2 }, value: 1 })).toThrow(/not a valid configuration/)
  })

  it('should steer the GP away from a region where evaluations fail', () => {
    // The optimum (x 9, y 10) sits near the failing region x ≥ 12, as fast kernels sit near resource limits.
    const v = Array.from({ length: 20 }, (_, i) => i)
    const space = { params: [{ name: 'x', type: 'integer' as const, values: v }, { name: 'y', type: 'integer' as const, values: v }] }
    const failures = (strategy: StrategyName, seed: number) => {
      const s = createSearch({ strategy, space, seed, bo: { initial: 6 } })
      let failed = 0
      for (let i = 0; i < 30; i++) {
        const [c] = s.ask(1)
        const x = Number(c!.x)
        const y = Number(c!.y)
        if (x >= 12) failed++, s.tell({ config: c!, failed: true })
        else s.tell({ config: c!, value: 1 + ((x - 9) ** 2 + (y - 10) ** 2) / 50 })
      }
      return failed
    }
    const seeds = [1, 2, 3, 4, 5]
    const bo = seeds.reduce((a, s) => a + failures('bo', s), 0)
    const rnd = seeds.reduce((a, s) => a + failures('random', s), 0)
    expect(bo).toBeLessThan(rnd * 0.7)
  })

  it('should reach the optimum of a smooth space in fewer evaluations than random search, with EI and with UCB', () => {
    const toOptimum = (strategy: StrategyName, seed: number, acquisition: 'ei' | 'ucb' = 'ei') => {
      const s = createSearch({ strategy, space: CONSTRAINED, seed, bo: { initial: 8, acquisition } })
      for (let i = 1; i <= 360; i++) {
        const [c] = s.ask(1)
        if (!c) return i
        s.tell({ config: c, value: bowl(c) })
        if (bowl(c) === 1) return i
      }
      return 360
    }
    const seeds = [11, 12, 13, 14, 15, 16]
    const mean = (f: (s: number) => number) => seeds.reduce((a, s) => a + f(s), 0) / seeds.length
    const random = mean((s) => toOptimum('random', s))
    expect(mean((s) => toOptimum('bo', s))).toBeLessThan(random / 2)
    expect(mean((s) => toOptimum('bo', s, 'ucb'))).toBeLessThan(random / 2)
    expect(mean((s) => toOptimum('tpe', s))).toBeLessThan(random)
  })

  it('should refuse to restore over a different space', () => {
    const search = createSearch({ strategy: 'tpe', space: CONSTRAINED, seed: 1 })
    const other = { ...CONSTRAINED, params: CONSTRAINED.params.slice(0, 3) }
    expect(() => restoreSearch(other, search.toJSON())).toThrow(/different search space/)
    expect(() => restoreSearch(CONSTRAINED, { format: 'nope' })).toThrow(/search state/)
  })
})

describe('search-strategy plugins', () => {
  it('should register bo, tpe and random and restore through the plugin', async () => {
    const registry = createRegistry()
    for (const p of [bayesianOptimizationStrategy(), tpeStrategy(), randomSearchStrategy()]) registry.register(p)
    const bo = registry.get('search-strategy', 'bo')
    const s = await bo.create(CONSTRAINED, { seed: 9, budget: { evaluations: 3 } })
    const [c] = s.ask(1)
    s.tell({ config: c!, value: bowl(c!) })
    const again = await bo.restore!(CONSTRAINED, JSON.parse(JSON.stringify(s.toJSON())))
    expect(again.best()).toEqual(s.best())
    expect(again.ask(5)).toHaveLength(2)
  })
})
