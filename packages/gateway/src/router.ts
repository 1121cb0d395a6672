/**
 * Which arm serves the next request, and the guardrails around the bandit:
 *
 * - The bandit (Thompson sampling by default) chooses among the arms that are up and not
 *   suspended; the statistics of the others stay as they are.
 * - The fallback arm (the defaults) is never suspended: it is the reference the others are judged
 *   against, and where requests go when nothing else can take them.
 * - Suspension: over each arm's last `window` requests, an arm whose objective-miss rate exceeds
 *   the fallback's by more than `margin`, with one-sided confidence `confidence` (a two-proportion
 *   z-test against the margin), is suspended. A suspended arm still gets `retryRate` of the
 *   requests (probes), so it can come back when its misses fall (a drifting neighbour load left).
 * - An arm that is down (its server crashed and is relaunching) takes no request until it is up.
 */
import { createBandit, Prng, type Bandit, type PolicyInput } from '@kerneltune/bandit'
import { KerneltuneError } from '@kerneltune/core'
import { normalQuantile } from '@kerneltune/stats'
import type { Judgement, Observation } from './reward.ts'

export interface GuardOptions {
  /** Recent requests per arm the suspension test looks at. Default 40. */
  readonly window?: number
  /** Miss-rate excess over the fallback's that counts as worse. Default 0.1. */
  readonly margin?: number
  /** One-sided confidence of the suspension test. Default 0.95. */
  readonly confidence?: number
  /** Requests each side needs in its window before any test. Default 10. */
  readonly minSamples?: number
  /** Share of requests that probe a suspended arm. Default 0.05. */
  readonly retryRate?: number
}

export interface RouterOptions {
  readonly arms: readonly string[]
  readonly fallback: string
  readonly policy?: PolicyInput
  readonly seed?: number
  readonly guard?: GuardOptions
}

export type Reason = 'policy' | 'probe' | 'fallback' | 'retry'

export interface Choice { readonly arm: string; readonly reason: Reason }

export interface ArmSnapshot {
  readonly arm: string
  readonly fallback: boolean
  readonly up: boolean
  readonly suspended: boolean
  /** Requests answered by this arm (a retried request counts on the arm that answered it). */
  readonly requests: number
  readonly failures: number
  readonly misses: number
  /** Requests sent here that failed before a byte and were served elsewhere (or never reached the arm). */
  readonly retriedAway: number
  /** Requests on this arm that the client abandoned: not the arm's failure, not in its reward. */
  readonly clientAborts: number
  readonly share: number
  readonly meanReward: number
  readonly meanTtftMs: number | null
  readonly meanTpotMs: number | null
  /** Miss rate over the recent window the guardrail uses. */
  readonly recentMissRate: number | null
  /** The policy's current belief about the arm's reward (sd null before any request). */
  readonly posterior: { readonly mean: number; readonly sd: number | null; readonly weight: number }
  readonly suspensions: number
  readonly crashes: number
}

interface ArmState {
  up: boolean
  suspended: boolean
  requests: number
  failures: number
  misses: number
  retriedAway: number
  clientAborts: number
  rewardSum: number
  ttftSum: number
  ttftN: number
  tpotSum: number
  tpotN: number
  recent: boolean[]
  suspensions: number
  crashes: number
}

/**
 * One-sided test that arm's miss rate exceeds the reference's by more than margin: the z of
 * (p₁ − p₀ − margin) over the unpooled standard error, with the add-one-half (Agresti–Caffo-style)
 * estimates so that a window of all hits or all misses still has a spread.
 */
export function missExcessZ(armMisses: number, armN: number, refMisses: number, refN: number, margin: number): number {
  const p1 = (armMisses + 0.5) / (armN + 1)
  const p0 = (refMisses + 0.5) / (refN + 1)
  const se = Math.sqrt((p1 * (1 - p1)) / armN + (p0 * (1 - p0)) / refN)
  return (armMisses / armN - refMisses / refN - margin) / se
}

export class Router {
  readonly arms: readonly string[]
  readonly fallback: string
  readonly bandit: Bandit
  private readonly state: Map<string, ArmState>
  private readonly prng: Prng
  private readonly guard: Required<GuardOptions>
  private readonly zCrit: number

  constructor(o: RouterOptions) {
    if (!o.arms.includes(o.fallback)) throw new KerneltuneError('INVALID_INPUT', `the fallback arm ${o.fallback} is not one of the arms (${o.arms.join(', ')})`)
    this.arms = [...o.arms]
    this.fallback = o.fallback
    this.bandit = createBandit({ arms: this.arms, policy: o.policy ?? { kind: 'thompson' }, seed: o.seed ?? 0 })
    this.prng = Prng.fromSeed((o.seed ?? 0) + 0x9e37)
    const g = o.guard ?? {}
    this.guard = { window: g.window ?? 40, margin: g.margin ?? 0.1, confidence: g.confidence ?? 0.95, minSamples: g.minSamples ?? 10, retryRate: g.retryRate ?? 0.05 }
    if (!(this.guard.confidence > 0.5 && this.guard.confidence < 1)) throw new KerneltuneError('INVALID_INPUT', `the suspension confidence must be between 0.5 and 1, got ${this.guard.confidence}`)
    if (!(this.guard.retryRate >= 0 && this.guard.retryRate <= 1)) throw new KerneltuneError('INVALID_INPUT', `the retry rate of a suspended arm must be in [0, 1], got ${this.guard.retryRate}`)
    this.zCrit = normalQuantile(this.guard.confidence)
    this.state = new Map(this.arms.map((a) => [a, { up: false, suspended: false, requests: 0, failures: 0, misses: 0, retriedAway: 0, clientAborts: 0, rewardSum: 0, ttftSum: 0, ttftN: 0, tpotSum: 0, tpotN: 0, recent: [], suspensions: 0, crashes: 0 }]))
  }

  private arm(id: string): ArmState {
    const s = this.state.get(id)
    if (!s) throw new KerneltuneError('INVALID_INPUT', `unknown arm ${id}; arms: ${this.arms.join(', ')}`)
    return s
  }

  setUp(id: string, up: boolean): void {
    const s = this.arm(id)
    if (s.up && !up) s.crashes++
    s.up = up
  }

  isUp(id: string): boolean {
    return this.arm(id).up
  }

  /** The arm for the next request, never one in `exclude`; undefined when no arm is up. */
  choose(exclude: ReadonlySet<string> = new Set()): Choice | undefined {
    const usable = (a: string) => this.arm(a).up && !exclude.has(a)
    const open = (a: string) => usable(a) && !this.arm(a).suspended
    const suspended = this.arms.filter((a) => usable(a) && this.arm(a).suspended)
    if (suspended.length && this.prng.next() < this.guard.retryRate) return { arm: suspended[this.prng.int(suspended.length)]!, reason: 'probe' }
    if (this.arms.some(open)) return { arm: this.bandit.select(open), reason: 'policy' }
    if (usable(this.fallback)) return { arm: this.fallback, reason: 'fallback' }
    const up = this.arms.find(usable)
    return up === undefined ? undefined : { arm: up, reason: 'fallback' }
  }

  /**
   * A request sent to `id` failed there before any byte reached the client, and it is the arm's
   * doing: the arm could not be reached, or another arm served what this one refused.
   */
  retriedAway(id: string): void {
    this.arm(id).retriedAway++
    this.bandit.update(id, 0)
  }

  /** The client left a request on `id`: counted apart, with no effect on the arm's reward or guardrail. */
  clientAborted(id: string): void {
    this.arm(id).clientAborts++
  }

  /** The outcome of a request answered by `id`; updates the bandit and the guardrail. */
  record(id: string, o: Observation, j: Judgement): void {
    const s = this.arm(id)
    s.requests++
    if (!o.ok) s.failures++
    if (!j.met) s.misses++
    s.rewardSum += j.reward
    if (o.ttftMs !== undefined) { s.ttftSum += o.ttftMs; s.ttftN++ }
    if (o.tpotMs !== undefined) { s.tpotSum += o.tpotMs; s.tpotN++ }
    s.recent.push(!j.met)
    if (s.recent.length > this.guard.window) s.recent.shift()
    this.bandit.update(id, j.reward)
    for (const a of id === this.fallback ? this.arms : [id]) this.reconsider(a)
  }

  private reconsider(id: string): void {
    if (id === this.fallback) return
    const s = this.arm(id)
    const ref = this.arm(this.fallback)
    if (s.recent.length < this.guard.minSamples || ref.recent.length < this.guard.minSamples) return
    const z = missExcessZ(s.recent.filter(Boolean).length, s.recent.length, ref.recent.filter(Boolean).length, ref.recent.length, this.guard.margin)
    const worse = z > this.zCrit
    if (worse && !s.suspended) s.suspensions++
    s.suspended = worse
  }

  snapshot(): ArmSnapshot[] {
    const total = [...this.state.values()].reduce((t, s) => t + s.requests, 0)
    const post = new Map(this.bandit.posterior().map((p) => [p.arm, p]))
    return this.arms.map((arm) => {
      const s = this.arm(arm)
      const p = post.get(arm)!
      return {
        arm, fallback: arm === this.fallback, up: s.up, suspended: s.suspended,
        requests: s.requests, failures: s.failures, misses: s.misses, retriedAway: s.retriedAway, clientAborts: s.clientAborts,
        share: total ? s.requests / total : 0,
        meanReward: s.requests ? s.rewardSum / s.requests : 0,
        meanTtftMs: s.ttftN ? s.ttftSum / s.ttftN : null,
        meanTpotMs: s.tpotN ? s.tpotSum / s.tpotN : null,
        recentMissRate: s.recent.length ? s.recent.filter(Boolean).length / s.recent.length : null,
        posterior: { mean: p.mean, sd: Number.isFinite(p.sd) ? p.sd : null, weight: p.weight },
        suspensions: s.suspensions, crashes: s.crashes,
      }
    })
  }
}
