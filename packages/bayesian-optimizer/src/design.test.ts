import { describe, expect, it } from 'vitest'
import type { SearchConfig } from '@kerneltune/core'
import { modelSubset, spaceFillingPicks } from './design.ts'
import { buildGp, hyperObjective, type GpLayout } from './gp.ts'
import { createRng } from './random.ts'
import { createSearch, restoreSearch } from './searcher.ts'
import { createSpace, type Indices } from './space.ts'
import { randomPicks, type ProposeContext } from './strategy.ts'
import { CONSTRAINED, constrainedOk } from './test-spaces.ts'

const GRID = { params: [{ name: 'x', type: 'integer' as const, values: Array.from({ length: 20 }, (_, i) => i) }, { name: 'y', type: 'integer' as const, values: Array.from({ length: 20 }, (_, i) => i) }] }

function minPairDistance(space: ReturnType<typeof createSpace>, picks: Indices[]): number {
  const d = space.dim
  const e = new Float64Array(picks.length * d)
  picks.forEach((p, i) => space.encode(p, e, i * d))
  let best = Infinity
  for (let i = 0; i < picks.length; i++) {
    for (let j = 0; j < i; j++) {
      let s = 0
      for (let c = 0; c < d; c++) s += (e[i * d + c]! - e[j * d + c]!) ** 2
      best = Math.min(best, Math.sqrt(s))
    }
  }
  return best
}

const ctxOf = (space: ReturnType<typeof createSpace>, seed: number): ProposeContext => ({ space, rng: createRng(seed), observations: [], pending: [], taken: new Set() })

describe('spaceFillingPicks', () => {
  it('should return distinct valid configurations, none already taken', () => {
    const space = createSpace(CONSTRAINED)
    const ctx = ctxOf(space, 3)
    const first = randomPicks(ctx, 2)
    const picks = spaceFillingPicks({ ...ctx, pending: first }, 12)
    const keys = picks.map((p) => space.key(p))
    expect(picks).toHaveLength(12)
    expect(new Set(keys).size).toBe(12)
    expect(keys.some((k) => first.some((f) => space.key(f) === k))).toBe(false)
    expect(picks.every((p) => constrainedOk(space.toConfig(p)))).toBe(true)
  })

  it('should spread its points farther apart than random picks do', () => {
    const space = createSpace(GRID)
    const seeds = Array.from({ length: 10 }, (_, i) => i + 1)
    const spread = seeds.map((s) => minPairDistance(space, spaceFillingPicks(ctxOf(space, s), 8)))
    const random = seeds.map((s) => minPairDistance(space, randomPicks(ctxOf(space, s), 8)))
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length / 2]!
    expect(median(spread)).toBeGreaterThan(2 * median(random))
  })

  it('should steer its later points away from a region where its earlier ones failed', () => {
    // x ≥ 12 fails: a 16-point initial design against 16 random points, over 10 seeds.
    const fails = (c: SearchConfig) => Number(c.x) >= 12
    const count = (design: 'maximin' | 'random', seed: number) => {
      const s = createSearch({ strategy: 'bo', space: GRID, seed, bo: { initial: 16, design } })
      let failed = 0
      for (let i = 0; i < 16; i++) {
        const [c] = s.ask(1)
        if (fails(c!)) failed++, s.tell({ config: c!, failed: true })
        else s.tell({ config: c!, value: 1 + Number(c!.x) / 10 })
      }
      return failed
    }
    const seeds = Array.from({ length: 10 }, (_, i) => i + 1)
    const design = seeds.reduce((a, s) => a + count('maximin', s), 0)
    const random = seeds.reduce((a, s) => a + count('random', s), 0)
    expect(design).toBeLessThan(random)
  })
})

describe('modelSubset', () => {
  const n = 300
  const d = 2
  const x = Float64Array.from({ length: n * d }, (_, i) => ((i * 7919) % 1000) / 1000)
  const y = Float64Array.from({ length: n }, (_, i) => Math.abs(x[i * d]! - 0.3) + Math.abs(x[i * d + 1]! - 0.6))
  const failed = Array.from({ length: n }, (_, i) => i % 10 === 0)
  const scale = new Float64Array([1, 1])

  it('should keep every observation up to the cap', () => {
    expect(modelSubset(x, y, failed, 50, d, 200, scale)).toEqual(Array.from({ length: 50 }, (_, i) => i))
  })

  it('should keep cap distinct observations past it: the incumbent, its nearest neighbours and the best', () => {
    const keep = modelSubset(x, y, failed, n, d, 100, scale)
    expect(keep).toHaveLength(100)
    expect(new Set(keep).size).toBe(100)
    expect([...keep].sort((a, b) => a - b)).toEqual(keep)
    const order = Array.from({ length: n }, (_, i) => i).filter((i) => !failed[i]).sort((a, b) => y[a]! - y[b]!)
    for (const i of order.slice(0, 10)) expect(keep).toContain(i)
    // Not only the good region: the spread keeps some of the worst half.
    expect(keep.filter((i) => order.indexOf(i) > order.length / 2).length).toBeGreaterThan(5)
  })

  it('should let a search past its model cap keep suggesting valid, distinct configurations and resume exactly', () => {
    const make = () => createSearch({ strategy: 'bo', space: CONSTRAINED, seed: 9, bo: { initial: 4, maxModel: 12, pool: 50 } })
    const drive = (s: ReturnType<typeof make>, steps: number) => {
      const out: SearchConfig[] = []
      for (let i = 0; i < steps; i++) {
        const [c] = s.ask(1)
        if (c!.layout === 'col') s.tell({ config: c!, failed: true })
        else s.tell({ config: c!, value: 1 + Number(c!.warps) + Math.abs(Math.log2(Number(c!.tile)) - 5) })
        out.push(c!)
      }
      return out
    }
    const straight = drive(make(), 30)
    const first = make()
    const head = drive(first, 18)
    const tail = drive(restoreSearch(CONSTRAINED, JSON.parse(JSON.stringify(first.toJSON()))), 12)
    expect([...head, ...tail]).toEqual(straight)
    expect(new Set(straight.map((c) => JSON.stringify(c))).size).toBe(30)
    expect(straight.every(constrainedOk)).toBe(true)
  })
})

describe('GP layout (one lengthscale per parameter)', () => {
  const n = 12
  const d = 4
  const x = Float64Array.from({ length: n * d }, (_, i) => ((i * 37) % 11) / 10)
  const y = Float64Array.from({ length: n }, (_, i) => Math.sin(i))
  const noise = new Float64Array(n)
  const layout: GpLayout = { group: Int32Array.from([0, 1, 1, 2]), scale: Float64Array.from([1, Math.SQRT1_2, Math.SQRT1_2, 1]), groups: 3 }

  it('should give the gradient of the log marginal likelihood in the grouped parameters', () => {
    const theta = Float64Array.from([-0.3, 0.2, -0.7, 0.1, Math.log(1e-2)])
    const { grad } = hyperObjective(x, y, noise, n, d, theta, layout)
    for (let k = 0; k < theta.length; k++) {
      const h = 1e-5
      const up = theta.slice()
      const dn = theta.slice()
      up[k]! += h
      dn[k]! -= h
      const fd = (hyperObjective(x, y, noise, n, d, up, layout).value - hyperObjective(x, y, noise, n, d, dn, layout).value) / (2 * h)
      expect(grad[k]!).toBeCloseTo(fd, 4)
    }
  })

  it('should equal the per-column kernel when every column is its own group at scale 1', () => {
    const own: GpLayout = { group: Int32Array.from([0, 1, 2, 3]), scale: new Float64Array([1, 1, 1, 1]), groups: 4 }
    const hyper = { logLengthscales: [-0.2, 0.3, -0.5, 0.1], logSignal: 0.2, logNoise: Math.log(1e-3) }
    const pts = Float64Array.from({ length: 5 * d }, (_, i) => ((i * 13) % 7) / 6)
    const a = buildGp(x, y, noise, n, d, hyper, own).predict(pts, 5)
    const b = buildGp(x, y, noise, n, d, hyper).predict(pts, 5)
    for (let q = 0; q < 5; q++) {
      expect(a.mean[q]!).toBeCloseTo(b.mean[q]!, 12)
      expect(a.variance[q]!).toBeCloseTo(b.variance[q]!, 12)
    }
  })
})

describe('BO options of issue 39', () => {
  for (const bo of [{ failures: 'classifier' as const }, { failures: 'worst' as const }, { kernel: 'columns' as const }, { design: 'maximin' as const, initial: 5 }]) {
    it(`should suggest valid, distinct configurations and resume exactly with ${JSON.stringify(bo)}`, () => {
      const make = () => createSearch({ strategy: 'bo', space: CONSTRAINED, seed: 4, bo: { pool: 60, ...bo } })
      const drive = (s: ReturnType<typeof make>, steps: number) => {
        const out: SearchConfig[] = []
        for (let i = 0; i < steps; i++) {
          for (const c of s.ask(2)) {
            if (c.layout === 'row' && c.stages === 3) s.tell({ config: c, failed: true })
            else s.tell({ config: c, value: 1 + Number(c.warps) + Math.abs(Math.log2(Number(c.tile)) - 5) })
            out.push(c)
          }
        }
        return out
      }
      const straight = drive(make(), 10)
      const first = make()
      const head = drive(first, 6)
      const tail = drive(restoreSearch(CONSTRAINED, JSON.parse(JSON.stringify(first.toJSON()))), 4)
      expect([...head, ...tail]).toEqual(straight)
      expect(new Set(straight.map((c) => JSON.stringify(c))).size).toBe(20)
      expect(straight.every(constrainedOk)).toBe(true)
    })
  }
})
