import { describe, expect, it } from 'vitest'
import { Bandit, createBandit, kernelBandit, KERNEL_BANDIT_ARMS } from './index.ts'

describe('Bandit (§A.12 vectors)', () => {
  it('should report exploration rate 0.75 for 4 arms pulled once each', () => {
    const b = createBandit({ arms: 4 })
    for (let i = 0; i < 4; i++) b.update(i, 0.5)
    expect(b.explorationRate()).toBeCloseTo(0.75, 12)
  })

  it('should report exploration rate 0.4 for 6 + 4 pulls and 0 when one arm has them all', () => {
    const b = createBandit({ arms: 2 })
    for (let i = 0; i < 6; i++) b.update(0, 1)
    for (let i = 0; i < 4; i++) b.update(1, 0)
    expect(b.explorationRate()).toBeCloseTo(0.4, 12)
    const one = createBandit({ arms: 3 })
    for (let i = 0; i < 5; i++) one.update(1, 0.2)
    expect(one.explorationRate()).toBe(0)
    expect(createBandit({ arms: 3 }).explorationRate()).toBe(1)
  })

  it('should estimate regret 0.6 for rewards 0.9 and 0.3', () => {
    const b = createBandit({ arms: 2 })
    b.update(0, 0.9)
    b.update(1, 0.3)
    expect(b.estimatedRegret()).toBeCloseTo(0.6, 12)
  })

  it('should not select the arm just updated (the others are still unexplored)', () => {
    const b = kernelBandit()
    b.update(3, 0.9)
    expect(b.select()).not.toBe(KERNEL_BANDIT_ARMS[3])
  })

  it('should name BatchedQ4K best when arm 3 pays 0.95 over 12 × 50 pulls', () => {
    const b = kernelBandit()
    for (let round = 0; round < 50; round++) {
      for (let k = 0; k < 12; k++) b.update(k, k === 3 ? 0.95 : 0.5)
    }
    expect(b.bestArm()).toBe('BatchedQ4K')
  })

  it('should break ties toward the lowest index (a fresh bandit picks its first arm)', () => {
    expect(kernelBandit().select()).toBe('TiledQ4K')
    expect(createBandit({ arms: ['x', 'y', 'z'] }).select()).toBe('x')
  })
})

describe('Bandit', () => {
  it('should try every arm once before repeating one under UCB1', () => {
    const b = createBandit({ arms: ['a', 'b', 'c', 'd'] })
    const seen: string[] = []
    for (let i = 0; i < 4; i++) {
      const a = b.select()
      seen.push(a)
      b.update(a, 0.5)
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd'])
  })

  it('should reject unknown arms, non-finite rewards and out-of-range Beta rewards', () => {
    const b = createBandit({ arms: ['a', 'b'], policy: { kind: 'thompson' } })
    expect(() => b.update('c', 1)).toThrow(/unknown arm/)
    expect(() => b.update(12, 1)).toThrow(/unknown arm/)
    expect(() => b.update('a', Number.NaN)).toThrow(/finite/)
    expect(() => b.update('a', 1.5)).toThrow(/\[0, 1\]/)
    const g = createBandit({ arms: ['a', 'b'], policy: { kind: 'thompson', likelihood: 'gaussian' } })
    expect(() => g.update('a', 1500)).not.toThrow()
  })

  it('should reject duplicate or missing arms and bad policies', () => {
    expect(() => createBandit({ arms: [] })).toThrow(/at least one arm/)
    expect(() => createBandit({ arms: ['a', 'a'] })).toThrow(/unique/)
    expect(() => createBandit({ arms: 2, policy: { kind: 'discounted-ucb', gamma: 1.5 } })).toThrow(/invalid bandit policy/)
  })

  it('should really sample under Thompson: different seeds choose differently, the same seed identically', () => {
    const run = (seed: number) => {
      const b = createBandit({ arms: 5, policy: { kind: 'thompson' }, seed })
      const picks: number[] = []
      for (let i = 0; i < 40; i++) {
        const a = b.selectIndex()
        picks.push(a)
        b.update(a, 0.5)
      }
      return picks
    }
    expect(run(1)).toEqual(run(1))
    expect(run(1)).not.toEqual(run(2))
  })

  it('should resume from JSON with exactly the same future selections, for every policy', () => {
    for (const policy of [
      { kind: 'ucb1' }, { kind: 'thompson' }, { kind: 'thompson', likelihood: 'gaussian' }, { kind: 'epsilon-greedy', epsilon: 0.3 },
      { kind: 'discounted-ucb' }, { kind: 'sliding-window-ucb', window: 7 }, { kind: 'discounted-thompson' },
    ] as const) {
      const a = createBandit({ arms: ['p', 'q', 'r'], policy, seed: 9 })
      let x = 0.37
      const reward = () => (x = (x * 7.13 + 0.11) % 1)
      for (let i = 0; i < 25; i++) a.update(a.select(), reward())
      const b = Bandit.fromJSON(JSON.parse(JSON.stringify(a.toJSON())))
      for (let i = 0; i < 25; i++) {
        const r = reward()
        const sa = a.select()
        expect(b.select()).toBe(sa)
        a.update(sa, r)
        b.update(sa, r)
      }
      expect(b.toJSON()).toEqual(a.toJSON())
    }
  })

  it('should refuse a corrupted state with INVALID_INPUT listing the problem', () => {
    const s = createBandit({ arms: ['a', 'b'] }).toJSON()
    expect(() => Bandit.fromJSON({ ...s, totals: [s.totals[0]] })).toThrow(/one entry per arm/)
    expect(() => Bandit.fromJSON({ ...s, version: 2 })).toThrow(/invalid bandit state/)
  })

  it('should keep only the last `window` rewards in a sliding window', () => {
    const b = createBandit({ arms: ['a', 'b'], policy: { kind: 'sliding-window-ucb', window: 3 } })
    for (let i = 0; i < 5; i++) b.update('a', 1)
    for (let i = 0; i < 3; i++) b.update('b', 0)
    const r = b.report()
    expect(r[0]!.pulls).toBe(5)
    expect(r[0]!.currentWeight).toBe(0)
    expect(r[1]!.currentWeight).toBe(3)
  })

  it('should forget geometrically under discounting', () => {
    const b = createBandit({ arms: ['a', 'b'], policy: { kind: 'discounted-ucb', gamma: 0.5 } })
    b.update('a', 1)
    b.update('b', 1)
    b.update('b', 1)
    expect(b.report()[0]!.currentWeight).toBeCloseTo(0.25, 12)
    expect(b.report()[1]!.currentWeight).toBeCloseTo(1.5, 12)
  })

  it.each(['ucb1', 'thompson', 'epsilon-greedy', 'discounted-thompson'] as const)('should select only allowed arms with %s, whatever the statistics say', (kind) => {
    const b = createBandit({ arms: ['best', 'mid', 'worst'], policy: { kind }, seed: 3 })
    for (let i = 0; i < 50; i++) {
      b.update('best', 0.95)
      b.update('mid', 0.5)
      b.update('worst', 0.1)
    }
    const picks = Array.from({ length: 200 }, () => b.select((a) => a !== 'best'))
    expect(picks).not.toContain('best')
    expect(picks.filter((a) => a === 'mid').length).toBeGreaterThan(150)
    expect(() => b.select(() => false)).toThrow(/no arm is allowed/)
  })

  it('should report the Beta posterior of Thompson sampling and a Gaussian one otherwise', () => {
    const b = createBandit({ arms: ['a', 'b'], policy: { kind: 'thompson' } })
    for (let i = 0; i < 8; i++) b.update('a', 1)
    b.update('a', 0)
    const [a, u] = b.posterior()
    // Beta(1 + 8, 1 + 1): mean 9/11, variance αβ/((α+β)²(α+β+1)) = 18/(121·12).
    expect(a!.mean).toBeCloseTo(9 / 11, 12)
    expect(a!.sd).toBeCloseTo(Math.sqrt(18 / 1452), 12)
    expect(u).toMatchObject({ mean: 0.5, weight: 0 })
    const g = createBandit({ arms: ['x'], policy: { kind: 'ucb1' } })
    g.update('x', 1)
    g.update('x', 3)
    expect(g.posterior()[0]).toMatchObject({ mean: 2, weight: 2 })
    expect(g.posterior()[0]!.sd).toBeCloseTo(Math.SQRT1_2, 12)
  })
})
