/**
 * A multi-armed bandit over any set of named arms. One class for every policy, so the serving
 * loop is always `select()` → run → `update(arm, reward)`, and the whole state (statistics,
 * sliding window, PRNG) round-trips through `toJSON`/`Bandit.fromJSON`.
 *
 * Decisions that differ from trueno's KernelBandit (§A.12; see README):
 * - ties go to the LOWEST index (upstream: the last), so a fresh bandit tries arms in the order given;
 * - Thompson sampling really samples (upstream adds a deterministic hash-based jitter);
 * - an unknown arm or a non-finite reward is an error (upstream ignores indices ≥ 12 silently).
 */
import { KerneltuneError, parseWith } from '@kerneltune/core'
import { z } from 'zod'
import { PolicySchema, isDriftPolicy, type Policy, type PolicyInput } from './policies.ts'
import { Prng, PrngStateSchema } from './prng.ts'

const ArmStatsSchema: z.ZodObject<{ pulls: z.ZodNumber; sum: z.ZodNumber; sumSq: z.ZodNumber }> = z.object({ pulls: z.number().nonnegative(), sum: z.number(), sumSq: z.number().nonnegative() })
export type ArmStats = z.output<typeof ArmStatsSchema>

export const BANDIT_FORMAT = 'kerneltune.bandit'
export const BANDIT_VERSION = 1

// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const BanditStateSchema: z.ZodObject<{
  format: z.ZodLiteral<typeof BANDIT_FORMAT>
  version: z.ZodLiteral<typeof BANDIT_VERSION>
  arms: z.ZodArray<z.ZodString>
  policy: typeof PolicySchema
  totals: z.ZodArray<typeof ArmStatsSchema>
  current: z.ZodArray<typeof ArmStatsSchema>
  window: z.ZodDefault<z.ZodArray<z.ZodTuple<[z.ZodNumber, z.ZodNumber], null>>>
  steps: z.ZodNumber
  prng: typeof PrngStateSchema
}> = z.object({
  format: z.literal(BANDIT_FORMAT),
  version: z.literal(BANDIT_VERSION),
  arms: z.array(z.string().min(1)).min(1),
  policy: PolicySchema,
  /** Every pull ever made, undiscounted: exploration rate, regret and reports use these. */
  totals: z.array(ArmStatsSchema),
  /** What the policy sees: discounted (discounted-*) or windowed (sliding-window-ucb) statistics. */
  current: z.array(ArmStatsSchema),
  /** sliding-window-ucb: the last `window` pulls as [arm index, reward]. */
  window: z.array(z.tuple([z.number().int().nonnegative(), z.number()])).default([]),
  steps: z.number().int().nonnegative(),
  prng: PrngStateSchema,
}).superRefine((s, ctx) => {
  if (s.totals.length !== s.arms.length || s.current.length !== s.arms.length) {
    ctx.addIssue({ code: 'custom', message: `totals and current must have one entry per arm (${s.arms.length})` })
  }
  if (new Set(s.arms).size !== s.arms.length) ctx.addIssue({ code: 'custom', path: ['arms'], message: 'arm ids must be unique' })
  if (s.window.some(([i]) => i >= s.arms.length)) ctx.addIssue({ code: 'custom', path: ['window'], message: 'window refers to an arm that does not exist' })
})
export type BanditState = z.output<typeof BanditStateSchema>

export interface BanditOptions {
  /** Arm ids (any strings, at least one, unique), or a count (ids "0".."n-1"). */
  arms: readonly string[] | number
  policy?: PolicyInput
  /** Seed of the PRNG used by Thompson sampling, epsilon-greedy and tie-free draws. Default 0. */
  seed?: number
}

export interface ArmReport {
  arm: string
  index: number
  /** Undiscounted pulls and mean reward over the whole run. */
  pulls: number
  mean: number
  /** What the policy currently believes (discounted or windowed for drift policies). */
  currentMean: number
  currentWeight: number
}

const mean = (s: ArmStats) => (s.pulls > 0 ? s.sum / s.pulls : 0)
const empty = (): ArmStats => ({ pulls: 0, sum: 0, sumSq: 0 })

/** Index of the largest score among the allowed ones, ties to the lowest index. */
function argmaxFirst(scores: readonly number[], allowed?: (i: number) => boolean): number {
  let best = -1
  for (let i = 0; i < scores.length; i++) {
    if (allowed && !allowed(i)) continue
    if (best < 0 || scores[i]! > scores[best]!) best = i
  }
  return best
}

export class Bandit {
  readonly arms: readonly string[]
  readonly policy: Policy
  private totals: ArmStats[]
  private current: ArmStats[]
  private window: [number, number][]
  private steps: number
  private prng: Prng

  constructor(opts: BanditOptions) {
    const arms = typeof opts.arms === 'number' ? Array.from({ length: opts.arms }, (_, i) => String(i)) : [...opts.arms]
    if (arms.length === 0) throw new KerneltuneError('INVALID_INPUT', 'a bandit needs at least one arm')
    if (new Set(arms).size !== arms.length) throw new KerneltuneError('INVALID_INPUT', `arm ids must be unique, got ${arms.join(', ')}`)
    this.arms = arms
    this.policy = parseWith(PolicySchema, opts.policy ?? { kind: 'ucb1' }, 'bandit policy')
    this.totals = arms.map(empty)
    this.current = arms.map(empty)
    this.window = []
    this.steps = 0
    this.prng = Prng.fromSeed(opts.seed ?? 0)
  }

  /** Resumes a saved bandit: the same future selections as the one that was saved. */
  static fromJSON(state: unknown): Bandit {
    const s = parseWith(BanditStateSchema, state, 'bandit state')
    const b = new Bandit({ arms: s.arms, policy: s.policy })
    b.totals = s.totals.map((a) => ({ ...a }))
    b.current = s.current.map((a) => ({ ...a }))
    b.window = s.window.map(([i, r]) => [i, r])
    b.steps = s.steps
    b.prng = Prng.fromState(s.prng)
    return b
  }

  toJSON(): BanditState {
    return {
      format: BANDIT_FORMAT, version: BANDIT_VERSION, arms: [...this.arms], policy: this.policy,
      totals: this.totals.map((a) => ({ ...a })), current: this.current.map((a) => ({ ...a })),
      window: this.window.map(([i, r]) => [i, r]), steps: this.steps, prng: this.prng.state(),
    }
  }

  /**
   * The arm to play next. `allowed` restricts the choice to some arms (a gateway leaves out arms
   * that are down or suspended) without touching the statistics of the others.
   */
  select(allowed?: (arm: string) => boolean): string {
    return this.arms[this.selectIndex(allowed && ((i) => allowed(this.arms[i]!)))]!
  }

  selectIndex(allowed?: (index: number) => boolean): number {
    const p = this.policy
    const open = allowed ? this.arms.map((_, i) => i).filter(allowed) : this.arms.map((_, i) => i)
    if (open.length === 0) throw new KerneltuneError('INVALID_INPUT', 'no arm is allowed: the bandit has nothing to select')
    switch (p.kind) {
      case 'ucb1':
      case 'discounted-ucb':
      case 'sliding-window-ucb':
        return argmaxFirst(this.ucbScores(), allowed)
      case 'thompson':
      case 'discounted-thompson':
        return argmaxFirst(this.thompsonSamples(), allowed)
      case 'epsilon-greedy': {
        const unpulled = open.find((i) => this.current[i]!.pulls === 0)
        if (unpulled !== undefined) return unpulled
        const eps = p.decay ? Math.min(p.epsilon, this.arms.length / Math.max(this.steps, 1)) : p.epsilon
        if (this.prng.next() < eps) return open[this.prng.int(open.length)]!
        return argmaxFirst(this.current.map(mean), allowed)
      }
    }
  }

  /**
   * What the policy believes of each arm now, in the reward's units: the posterior mean and
   * standard deviation for Thompson sampling, the current mean and the exploration bonus's
   * scale otherwise. For /metrics; it draws nothing from the PRNG.
   */
  posterior(): { arm: string; mean: number; sd: number; weight: number }[] {
    const p = this.policy
    const pooled = this.pooledVariance()
    return this.arms.map((arm, i) => {
      const a = this.current[i]!
      if ((p.kind === 'thompson' || p.kind === 'discounted-thompson') && p.likelihood === 'beta') {
        const alpha = p.priorAlpha + a.sum
        const beta = p.priorBeta + Math.max(a.pulls - a.sum, 0)
        const n = alpha + beta
        return { arm, mean: alpha / n, sd: Math.sqrt((alpha * beta) / (n * n * (n + 1))), weight: a.pulls }
      }
      const m = mean(a)
      const own = a.pulls >= 2 ? Math.max(a.sumSq / a.pulls - m * m, 0) : pooled
      return { arm, mean: m, sd: a.pulls > 1e-9 ? Math.sqrt(own / a.pulls) : Number.POSITIVE_INFINITY, weight: a.pulls }
    })
  }

  /** UCB index of every arm: mean + c·sqrt(2 ln N / n), Infinity for an arm never (or no longer) seen. */
  ucbScores(): number[] {
    const p = this.policy
    const c = 'c' in p ? p.c : 1
    const n = this.current.reduce((t, a) => t + a.pulls, 0)
    const logN = Math.log(Math.max(n, 1))
    return this.current.map((a) => (a.pulls > 1e-9 ? mean(a) + c * Math.sqrt((2 * logN) / a.pulls) : Number.POSITIVE_INFINITY))
  }

  /** One posterior draw per arm (consumes PRNG state). */
  private thompsonSamples(): number[] {
    const p = this.policy
    if (p.kind !== 'thompson' && p.kind !== 'discounted-thompson') throw new Error('unreachable')
    if (p.likelihood === 'beta') {
      return this.current.map((a) => this.prng.beta(p.priorAlpha + a.sum, p.priorBeta + Math.max(a.pulls - a.sum, 0)))
    }
    // Gaussian: N(mean, var/n) with the arm's sample variance, or the pooled one while an arm has
    // fewer than 2 pulls, so the spread is in the rewards' own units. Unseen arms go first.
    const pooled = this.pooledVariance()
    return this.current.map((a) => {
      if (a.pulls < 1e-9) return Number.POSITIVE_INFINITY
      const m = mean(a)
      const own = a.pulls >= 2 ? Math.max(a.sumSq / a.pulls - m * m, 0) : pooled
      const variance = Math.max(own, pooled * 1e-3, 1e-12 * (m * m + 1))
      return m + Math.sqrt(variance / a.pulls) * this.prng.normal()
    })
  }

  private pooledVariance(): number {
    let ss = 0
    let df = 0
    for (const a of this.current) {
      if (a.pulls < 2) continue
      const m = mean(a)
      ss += Math.max(a.sumSq - a.pulls * m * m, 0)
      df += a.pulls - 1
    }
    return df > 0 ? ss / df : 1
  }

  /** Records a reward for an arm (by id or index). */
  update(arm: string | number, reward: number): void {
    const i = typeof arm === 'number' ? arm : this.arms.indexOf(arm)
    if (!Number.isInteger(i) || i < 0 || i >= this.arms.length) {
      throw new KerneltuneError('INVALID_INPUT', `unknown arm ${JSON.stringify(arm)}; arms: ${this.arms.join(', ')}`)
    }
    if (!Number.isFinite(reward)) throw new KerneltuneError('INVALID_INPUT', `reward must be a finite number, got ${reward}`)
    const p = this.policy
    if ((p.kind === 'thompson' || p.kind === 'discounted-thompson') && p.likelihood === 'beta' && (reward < 0 || reward > 1)) {
      throw new KerneltuneError('INVALID_INPUT', `Thompson sampling with a Beta posterior needs rewards in [0, 1], got ${reward}; normalise the reward or use likelihood 'gaussian'`)
    }
    add(this.totals[i]!, reward, 1)
    if (p.kind === 'discounted-ucb' || p.kind === 'discounted-thompson') {
      for (const a of this.current) {
        a.pulls *= p.gamma
        a.sum *= p.gamma
        a.sumSq *= p.gamma
      }
      add(this.current[i]!, reward, 1)
    } else if (p.kind === 'sliding-window-ucb') {
      this.window.push([i, reward])
      add(this.current[i]!, reward, 1)
      if (this.window.length > p.window) {
        const [j, r] = this.window.shift()!
        add(this.current[j]!, r, -1)
        // Removing by subtraction leaves float dust; an arm that left the window is exactly empty.
        if (this.current[j]!.pulls < 0.5) this.current[j] = empty()
      }
    } else {
      add(this.current[i]!, reward, 1)
    }
    this.steps++
  }

  /** The arm with the highest current mean reward (ties to the lowest index). */
  bestArm(): string {
    return this.arms[argmaxFirst(this.current.map(mean))]!
  }

  /** 1 − (most-pulled arm's pulls / all pulls); 1 before any pull (upstream's definition). */
  explorationRate(): number {
    const total = this.totals.reduce((t, a) => t + a.pulls, 0)
    if (total === 0) return 1
    return 1 - Math.max(...this.totals.map((a) => a.pulls)) / total
  }

  /**
   * Regret estimated from the observed means: Σ (best mean − mean of arm) × pulls of arm (upstream's
   * estimate; the true regret needs the true means, which only a simulation knows).
   */
  estimatedRegret(): number {
    const means = this.totals.map(mean)
    const best = Math.max(0, ...means)
    return this.totals.reduce((t, a, i) => t + (best - means[i]!) * a.pulls, 0)
  }

  totalPulls(): number {
    return this.steps
  }

  report(): ArmReport[] {
    return this.arms.map((arm, index) => ({
      arm, index, pulls: this.totals[index]!.pulls, mean: mean(this.totals[index]!),
      currentMean: mean(this.current[index]!), currentWeight: this.current[index]!.pulls,
    }))
  }

  /** True for the discounted / sliding-window policies. */
  get tracksDrift(): boolean {
    return isDriftPolicy(this.policy)
  }
}

function add(a: ArmStats, reward: number, sign: 1 | -1): void {
  a.pulls += sign
  a.sum += sign * reward
  a.sumSq = Math.max(a.sumSq + sign * reward * reward, 0)
}

/** A bandit over any arms (`createBandit({ arms: ['a', 'b'], policy: { kind: 'thompson' }, seed: 1 })`). */
export function createBandit(opts: BanditOptions): Bandit {
  return new Bandit(opts)
}
