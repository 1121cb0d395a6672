/**
 * The traffic-shift check of adapters/gateway-live.node.test.ts (the gateway in front of two real
 * servers), as data, and the router run through the same protocol in-process: router.test.ts
 * computes from it how often the check fails under the router's own policy (Thompson sampling,
 * seeded) when the arms are as far apart as the test's setup makes them. Used by those tests only.
 */
import { Router } from './router.ts'

/**
 * Rounds of `concurrency` requests sent at once (each round's requests are routed before any of
 * them is answered), then: at least `atLeast` of the last `window` decisions went to the fast arm.
 */
export const SHIFT_CHECK = { rounds: 14, concurrency: 4, window: 16, atLeast: 12 } as const

/**
 * The arms' decisions, in the order the gateway reports them (as requests finish: within a round
 * the fast arm's first), when every request of an arm earns that arm's fixed reward. The Beta
 * posterior rests on an arm's reward sum and count only, so a fixed reward stands for any rewards
 * of that mean.
 */
export function simulateShift(seed: number, reward: { readonly fast: number; readonly slow: number }, check = SHIFT_CHECK): string[] {
  const router = new Router({ arms: ['defaults', 'fast'], fallback: 'defaults', seed })
  router.setUp('defaults', true)
  router.setUp('fast', true)
  const decisions: string[] = []
  for (let round = 0; round < check.rounds; round++) {
    const chosen = Array.from({ length: check.concurrency }, () => router.choose()!.arm)
    for (const arm of [...chosen.filter((a) => a === 'fast'), ...chosen.filter((a) => a !== 'fast')]) {
      const r = arm === 'fast' ? reward.fast : reward.slow
      router.record(arm, { ok: true, e2eMs: 0 }, { met: r >= 0.5, reward: r, missed: r >= 0.5 ? [] : ['tpot'] })
      decisions.push(arm)
    }
  }
  return decisions
}

/** Of `seeds` router seeds (0, 1, …), how many fail the check. */
export function shiftFailures(seeds: number, reward: { readonly fast: number; readonly slow: number }, check = SHIFT_CHECK): number {
  let failed = 0
  for (let s = 0; s < seeds; s++) {
    const late = simulateShift(s, reward, check).slice(-check.window)
    if (late.filter((a) => a === 'fast').length < check.atLeast) failed++
  }
  return failed
}
