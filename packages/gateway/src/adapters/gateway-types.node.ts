/**
 * The gateway's shared shapes: an arm's spec and live state, a routing decision, the status. Apart
 * from gateway.node.ts so that its parts (arms, completion, routes) can name them without an
 * import circle.
 */
import type { Combo } from '@kerneltune/core'
import type { LatencyObjective } from '@kerneltune/serving'
import type { ServerTarget } from '@kerneltune/serving/node'
import type { GatewayTotals } from '../metrics.ts'
import type { ArmSnapshot, Reason } from '../router.ts'

export interface GatewayArmSpec {
  readonly id: string
  /** How the arm's server comes to exist: an engine's translation of `combo` (any engine with a serving capability), or a running endpoint. */
  readonly target: ServerTarget
  readonly combo?: Combo
}

export interface Decision {
  readonly requestId: number
  /** ms since the gateway started. */
  readonly atMs: number
  readonly arm: string
  readonly reason: Reason
  readonly ok: boolean
  readonly met: boolean
  readonly reward: number
  readonly ttftMs?: number
  readonly tpotMs?: number
  readonly e2eMs: number
  readonly outputTokens?: number
  /** The arm tried first when this request was retried. */
  readonly retriedFrom?: string
}

export interface ArmInfo {
  readonly id: string
  readonly combo: Combo
  readonly baseUrl: string | null
  readonly pid: number | null
  readonly argv: readonly string[]
  readonly version: string | null
  readonly launched: boolean
  readonly up: boolean
  readonly launches: number
  /** Requests on their way to or from this arm now. */
  readonly inFlight: number
}

export interface GatewayStatus {
  readonly url: string
  readonly policy: string
  readonly fallback: string
  readonly objectives: readonly LatencyObjective[]
  readonly draining: boolean
  readonly totals: GatewayTotals
  readonly arms: readonly (ArmSnapshot & { readonly server: ArmInfo })[]
}
