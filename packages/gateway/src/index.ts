/**
 * @module @kerneltune/gateway
 * Keep tuning while serving: route live requests among server configurations (arms) with a
 * bandit. This entry point is runtime-neutral: the reward of a request against latency
 * objectives, the response observer (TTFT, TPOT from the bytes passing through), the router with
 * its guardrails (fallback arm, suspension with confidence, probes), the /metrics text, the checks
 * of what is forwarded (size, depth, UTF-8, token limits, the generation cap) and of who may call
 * (Host, Origin, token). The
 * HTTP server that launches the arms is `@kerneltune/gateway/node`.
 *
 * @example
 * ```ts
 * import { Router, judge } from '@kerneltune/gateway'
 * import { parseSlo } from '@kerneltune/serving'
 * const r = new Router({ arms: ['defaults', 'threads1'], fallback: 'defaults' })
 * r.setUp('defaults', true)
 * r.setUp('threads1', true)
 * const { arm } = r.choose()!
 * const obs = { ok: true, e2eMs: 300, ttftMs: 40, tpotMs: 8, outputTokens: 32 }
 * r.record(arm, obs, judge(obs, parseSlo('ttft_p99_ms=500,tpot_p99_ms=50')))
 * ```
 */
export { comboId, resolveArms, splitArms, uniqueCombos, type ArmContext, type ArmRequest } from './arm-plan.ts'
export { policyInput, type PolicyParams } from './policy-input.ts'
export { checkToken, corsHeaders, DEFAULT_TIMEOUTS, hostAllowed, isLoopback, originAllowed, parseOrigin, serverTimeouts, tokenAccepted, type Timeouts } from './access.ts'
export { BodyBudget, checkRequest, DEFAULT_LIMITS, TOKEN_LIMIT_FIELDS, type CheckedRequest, type RequestLimits } from './request.ts'
export { renderMetrics, type GatewayTotals } from './metrics.ts'
export { observeResponse, type ResponseObserver } from './observe.ts'
export { judge, type Judgement, type Observation } from './reward.ts'
export { missExcessZ, Router, type ArmSnapshot, type Choice, type GuardOptions, type Reason, type RouterOptions } from './router.ts'
