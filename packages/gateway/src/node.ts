/**
 * @module @kerneltune/gateway/node
 * The gateway's HTTP server (Node): launches one server per arm with @kerneltune/serving/node,
 * serves an OpenAI-compatible endpoint, forwards each request to the arm the bandit picks and
 * streams the answer back unchanged.
 *
 * @example
 * ```ts
 * import { startGateway } from '@kerneltune/gateway/node'
 * import { parseSlo } from '@kerneltune/serving'
 * const g = await startGateway({ arms: [{ id: 'defaults', target: { kind: 'endpoint', url: 'http://127.0.0.1:8080' } }], fallback: 'defaults', objectives: parseSlo('ttft_p99_ms=500') })
 * console.log(g.url)
 * await g.stop()
 * ```
 */
export { DEFAULT_MAX_TOTAL_BODY_BYTES, startGateway, type ArmInfo, type Decision, type Gateway, type GatewayArmSpec, type GatewayOptions, type GatewayStatus } from './adapters/gateway.node.ts'
