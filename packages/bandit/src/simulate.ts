/**
 * Simulated bandit problems with known true means, to measure a policy's real (pseudo-)regret:
 * Σ_t (μ*_t − μ_{a_t}), where μ*_t is the best true mean at step t. Rewards are Bernoulli or
 * Gaussian; a piecewise-stationary problem switches to new means at given steps (drift).
 * Rewards are drawn from their own seeded PRNG, so two policies face the same reward stream
 * sequence for the same seed.
 */
import { KERNEL_TYPES, KerneltuneError } from '@kerneltune/core'
import { Bandit, type BanditOptions } from './bandit.ts'
import { Prng } from './prng.ts'

export interface RewardPhase {
  /** First step (0-based) at which these means apply. */
  from: number
  means: readonly number[]
}

export interface SimulationProblem {
  /** Bernoulli(μ) rewards in {0,1}, or Gaussian N(μ, sd²). */
  reward: 'bernoulli' | 'gaussian'
  /** Means from step 0; add `changes` for drifting rewards. */
  means: readonly number[]
  changes?: readonly RewardPhase[]
  /** Standard deviation of Gaussian rewards (default 0.1). */
  sd?: number
}

export interface SimulationOptions {
  problem: SimulationProblem
  bandit: Bandit | Omit<BanditOptions, 'arms'>
  steps: number
  /** Seed of the reward stream (the bandit's own PRNG is seeded through `bandit.seed`). */
  seed?: number
  /** Steps at which to record cumulative regret (default: 20 log-spaced points and the last step). */
  checkpoints?: readonly number[]
}

export interface SimulationResult {
  steps: number
  /** Cumulative pseudo-regret after every checkpoint step. */
  curve: { step: number; regret: number }[]
  regret: number
  /** Total reward collected. */
  reward: number
  pulls: number[]
  /** Index of the arm chosen at each step (only when `steps` ≤ 100 000, to bound memory). */
  choices?: number[]
  bestArmAtEnd: number
  bandit: Bandit
}

function meansAt(problem: SimulationProblem, step: number): readonly number[] {
  let m = problem.means
  for (const c of problem.changes ?? []) if (step >= c.from) m = c.means
  return m
}

export function defaultCheckpoints(steps: number): number[] {
  const out = new Set<number>()
  for (let i = 0; i <= 20; i++) out.add(Math.max(1, Math.round(steps ** (i / 20))))
  out.add(steps)
  return [...out].sort((a, b) => a - b)
}

/** Runs a policy on a simulated problem and returns its true cumulative regret. */
export function simulate(opts: SimulationOptions): SimulationResult {
  const { problem, steps } = opts
  const k = problem.means.length
  if (k === 0) throw new KerneltuneError('INVALID_INPUT', 'a simulation needs at least one arm mean')
  for (const c of problem.changes ?? []) {
    if (c.means.length !== k) throw new KerneltuneError('INVALID_INPUT', `every phase must have ${k} means, got ${c.means.length}`)
  }
  if (problem.reward === 'bernoulli' && [problem.means, ...(problem.changes ?? []).map((c) => c.means)].flat().some((m) => m < 0 || m > 1)) {
    throw new KerneltuneError('INVALID_INPUT', 'Bernoulli means must lie in [0, 1]')
  }
  const bandit = opts.bandit instanceof Bandit ? opts.bandit : new Bandit({ ...opts.bandit, arms: k })
  if (bandit.arms.length !== k) throw new KerneltuneError('INVALID_INPUT', `the bandit has ${bandit.arms.length} arms, the problem ${k}`)
  const rng = Prng.fromSeed(opts.seed ?? 1)
  const sd = problem.sd ?? 0.1
  const marks = new Set(opts.checkpoints ?? defaultCheckpoints(steps))
  const curve: { step: number; regret: number }[] = []
  const pulls = new Array<number>(k).fill(0)
  const choices: number[] | undefined = steps <= 100_000 ? [] : undefined
  let regret = 0
  let total = 0
  for (let t = 0; t < steps; t++) {
    const mu = meansAt(problem, t)
    const a = bandit.selectIndex()
    const m = mu[a]!
    const r = problem.reward === 'bernoulli' ? (rng.next() < m ? 1 : 0) : m + sd * rng.normal()
    bandit.update(a, r)
    regret += Math.max(...mu) - m
    total += r
    pulls[a]!++
    choices?.push(a)
    if (marks.has(t + 1)) curve.push({ step: t + 1, regret })
  }
  const last = meansAt(problem, steps - 1)
  const result: SimulationResult = { steps, curve, regret, reward: total, pulls, bestArmAtEnd: last.indexOf(Math.max(...last)), bandit }
  if (choices) result.choices = choices
  return result
}

/** Least-squares slope of log(regret) against log(step): below 1 means sublinear growth. */
export function logLogSlope(curve: readonly { step: number; regret: number }[]): number {
  const pts = curve.filter((p) => p.step > 0 && p.regret > 0).map((p) => [Math.log(p.step), Math.log(p.regret)] as const)
  if (pts.length < 2) return Number.NaN
  const mx = pts.reduce((s, p) => s + p[0], 0) / pts.length
  const my = pts.reduce((s, p) => s + p[1], 0) / pts.length
  let num = 0
  let den = 0
  for (const [x, y] of pts) {
    num += (x - mx) * (y - my)
    den += (x - mx) ** 2
  }
  return num / den
}

/** trueno's KernelBandit arms: the first 12 kernel types (indices 0..11), UCB1 with c = 2. */
export const KERNEL_BANDIT_ARMS: readonly string[] = KERNEL_TYPES.slice(0, 12)

export function kernelBandit(opts: { policy?: BanditOptions['policy']; seed?: number } = {}): Bandit {
  return new Bandit({ arms: KERNEL_BANDIT_ARMS, policy: opts.policy ?? { kind: 'ucb1', c: 2 }, seed: opts.seed ?? 0 })
}
