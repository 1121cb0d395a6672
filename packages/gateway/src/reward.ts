/**
 * The reward of one request: what the client experienced against the latency objectives.
 *
 * - A failed request earns 0.
 * - Each objective gives a ratio observed / bound (a TPOT objective on a one-token answer is met
 *   vacuously, as in vLLM's goodput). The request met the objectives when every ratio is ≤ 1.
 * - reward = 0.5·met + 0.5·headroom, headroom = the mean over objectives of clamp(1 − ratio, 0, 1).
 *   Meeting the objectives dominates (every met request outranks every missed one), and among
 *   met requests the faster ones (shorter TTFT, higher tokens per second: lower TPOT) earn more,
 *   so the bandit still separates two arms that both meet a loose objective.
 *
 * The reward is in [0, 1], which Thompson sampling's Beta posterior needs.
 */
import type { LatencyObjective } from '@kerneltune/serving'

/** What one request experienced, measured by the gateway. */
export interface Observation {
  readonly ok: boolean
  readonly e2eMs: number
  readonly ttftMs?: number | undefined
  /** (e2e − TTFT) / (output tokens − 1). */
  readonly tpotMs?: number | undefined
  /** Mean gap between content chunks after the first. */
  readonly itlMs?: number | undefined
  readonly outputTokens?: number | undefined
}

export interface Judgement {
  readonly met: boolean
  readonly reward: number
  /** The metrics whose objective the request missed. */
  readonly missed: readonly string[]
}

function observed(o: Observation, metric: LatencyObjective['metric']): number | undefined {
  switch (metric) {
    case 'ttft': return o.ttftMs
    case 'tpot': return o.tpotMs
    case 'itl': return o.itlMs
    case 'e2e': return o.e2eMs
  }
}

export function judge(o: Observation, objectives: readonly LatencyObjective[]): Judgement {
  if (!o.ok) return { met: false, reward: 0, missed: ['failed'] }
  if (objectives.length === 0) throw new Error('judge needs at least one latency objective')
  const missed: string[] = []
  let headroom = 0
  for (const ob of objectives) {
    const v = observed(o, ob.metric)
    // No TPOT or ITL on a one-token answer: met, with full headroom.
    const ratio = v === undefined ? 0 : v / ob.limitMs
    if (ratio > 1) missed.push(ob.metric)
    headroom += Math.min(1, Math.max(0, 1 - ratio))
  }
  const met = missed.length === 0
  return { met, reward: 0.5 * (met ? 1 : 0) + (0.5 * headroom) / objectives.length, missed }
}
