import { describe, expect, it } from 'vitest'
import { logLogSlope, simulate, type SimulationProblem } from './index.ts'

const STATIONARY: SimulationProblem = { reward: 'bernoulli', means: [0.9, 0.8, 0.7, 0.5, 0.3] }
const at = (curve: { step: number; regret: number }[], step: number) => curve.find((p) => p.step === step)!.regret
const CHECKS = [100, 200, 500, 1000, 2000, 5000, 10000]

describe('regret on a stationary problem (fixed seeds)', () => {
  for (const policy of [
    { kind: 'ucb1' },
    { kind: 'thompson' },
    { kind: 'thompson', likelihood: 'gaussian' },
    { kind: 'epsilon-greedy', epsilon: 0.1, decay: true },
  ] as const) {
    it(`should grow sublinearly for ${JSON.stringify(policy)}`, () => {
      const r = simulate({ problem: STATIONARY, bandit: { policy, seed: 3 }, steps: 10_000, seed: 5, checkpoints: CHECKS })
      const ratio = at(r.curve, 10_000) / at(r.curve, 1000)
      // Linear regret would give a ratio of 10 and a log-log slope of 1.
      expect(ratio).toBeLessThan(4)
      expect(logLogSlope(r.curve)).toBeLessThan(0.7)
      expect(r.pulls[0]! / 10_000).toBeGreaterThan(0.8)
    })
  }

  it('should grow linearly for fixed epsilon-greedy (the contrast that shows the test can fail)', () => {
    const r = simulate({ problem: STATIONARY, bandit: { policy: { kind: 'epsilon-greedy', epsilon: 0.2 }, seed: 3 }, steps: 10_000, seed: 5, checkpoints: CHECKS })
    expect(at(r.curve, 10_000) / at(r.curve, 1000)).toBeGreaterThan(7)
  })

  it('should handle unbounded Gaussian rewards (tokens/s) with Gaussian Thompson sampling', () => {
    const r = simulate({ problem: { reward: 'gaussian', means: [1200, 1500, 900], sd: 80 }, bandit: { policy: { kind: 'thompson', likelihood: 'gaussian' }, seed: 1 }, steps: 5000, seed: 2 })
    expect(r.bandit.bestArm()).toBe('1')
    expect(r.pulls[1]! / 5000).toBeGreaterThan(0.95)
  })
})

describe('drifting rewards: the best arm changes at step 5000 (fixed seeds)', () => {
  const DRIFT: SimulationProblem = { reward: 'bernoulli', means: [0.8, 0.5, 0.3], changes: [{ from: 5000, means: [0.8, 0.5, 0.95] }] }
  const shareOfNewBest = (choices: number[]) => choices.slice(9000).filter((a) => a === 2).length / 1000

  for (const policy of [{ kind: 'discounted-thompson' }, { kind: 'sliding-window-ucb' }, { kind: 'discounted-ucb' }] as const) {
    it(`should recover with ${policy.kind}: the new best arm gets most of the last 1000 pulls`, () => {
      for (const seed of [3, 4]) {
        const r = simulate({ problem: DRIFT, bandit: { policy, seed }, steps: 10_000, seed: seed + 10 })
        expect(r.choices!.slice(4000, 5000).filter((a) => a === 0).length / 1000).toBeGreaterThan(0.8)
        expect(shareOfNewBest(r.choices!)).toBeGreaterThan(0.8)
      }
    })
  }

  it('should not recover with stationary Thompson sampling (its posterior has converged)', () => {
    const r = simulate({ problem: DRIFT, bandit: { policy: { kind: 'thompson' }, seed: 3 }, steps: 10_000, seed: 13 })
    expect(shareOfNewBest(r.choices!)).toBeLessThan(0.2)
    const d = simulate({ problem: DRIFT, bandit: { policy: { kind: 'discounted-thompson' }, seed: 3 }, steps: 10_000, seed: 13 })
    expect(d.regret).toBeLessThan(r.regret)
  })
})
