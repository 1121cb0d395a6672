/**
 * The gateway's /metrics in the Prometheus text format (0.0.4): per arm the requests, objective
 * misses, failures, retries, traffic share, up/suspended state and the policy's posterior.
 */
import type { ArmSnapshot } from './router.ts'

export interface GatewayTotals {
  readonly requests: number
  /** Requests the gateway could not serve because of the arms (none up, one crashed, an answer cut). */
  readonly failed: number
  /** Requests that were the client's error: refused by the gateway's checks (4xx), or refused by every arm tried. */
  readonly clientErrors: number
  /** Requests the client abandoned before its answer ended. */
  readonly clientAborts: number
  /** Requests sent to a second arm after the first failed before any byte. */
  readonly retries: number
  readonly inFlight: number
  /** Bytes of request bodies the gateway holds now (bounded by its --max-total-body-mb). */
  readonly bodyBytesHeld: number
  readonly relaunches: number
  /** Pooled connections an arm had closed while idle; the request went again on a fresh one. */
  readonly staleConnections: number
}

const label = (v: string) => v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')

export function renderMetrics(arms: readonly ArmSnapshot[], totals: GatewayTotals, policy: string): string {
  const lines: string[] = []
  const family = (name: string, type: 'counter' | 'gauge', help: string, value: (a: ArmSnapshot) => number) => {
    lines.push(`# HELP kerneltune_gateway_${name} ${help}`, `# TYPE kerneltune_gateway_${name} ${type}`)
    for (const a of arms) lines.push(`kerneltune_gateway_${name}{arm="${label(a.arm)}"} ${value(a)}`)
  }
  family('requests_total', 'counter', 'Requests answered by the arm.', (a) => a.requests)
  family('objective_misses_total', 'counter', 'Requests on the arm that missed a latency objective (failures included).', (a) => a.misses)
  family('failures_total', 'counter', 'Requests on the arm that failed after the answer began.', (a) => a.failures)
  family('retried_away_total', 'counter', 'Requests the arm failed before any byte, answered by another arm.', (a) => a.retriedAway)
  family('client_aborts_total', 'counter', 'Requests on the arm that the client abandoned (not counted as the arm\'s failures).', (a) => a.clientAborts)
  family('traffic_share', 'gauge', 'Share of all answered requests that the arm answered.', (a) => a.share)
  family('up', 'gauge', '1 when the arm\'s server is up.', (a) => (a.up ? 1 : 0))
  family('suspended', 'gauge', '1 while the guardrail suspends the arm.', (a) => (a.suspended ? 1 : 0))
  family('posterior_mean', 'gauge', `The ${label(policy)} policy's current mean reward of the arm.`, (a) => a.posterior.mean)
  family('posterior_sd', 'gauge', 'Its standard deviation (NaN before the first request).', (a) => a.posterior.sd ?? Number.NaN)
  family('posterior_weight', 'gauge', 'Requests the posterior rests on (discounted for drifting policies).', (a) => a.posterior.weight)
  family('crashes_total', 'counter', 'Times the arm\'s server was found dead.', (a) => a.crashes)
  const scalar = (name: string, type: 'counter' | 'gauge', help: string, v: number) => lines.push(`# HELP kerneltune_gateway_${name} ${help}`, `# TYPE kerneltune_gateway_${name} ${type}`, `kerneltune_gateway_${name} ${v}`)
  scalar('received_total', 'counter', 'Requests the gateway received on the completion routes.', totals.requests)
  scalar('failed_total', 'counter', 'Requests no arm could serve, or whose arm failed.', totals.failed)
  scalar('client_errors_total', 'counter', 'Requests that were the client\'s error (refused by the gateway, or by every arm tried).', totals.clientErrors)
  scalar('client_aborts_total', 'counter', 'Requests the client abandoned.', totals.clientAborts)
  scalar('retries_total', 'counter', 'Requests retried on a second arm.', totals.retries)
  scalar('in_flight', 'gauge', 'Requests in flight now.', totals.inFlight)
  scalar('body_bytes_held', 'gauge', 'Bytes of request bodies held now.', totals.bodyBytesHeld)
  scalar('relaunches_total', 'counter', 'Arm servers relaunched after a crash.', totals.relaunches)
  scalar('stale_connections_total', 'counter', 'Requests sent again on a fresh connection because an arm had closed the pooled one.', totals.staleConnections)
  return lines.join('\n') + '\n'
}
