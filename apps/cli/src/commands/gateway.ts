/**
 * `kerneltune gateway`: keep tuning while serving. Launches one server per arm (or uses running
 * endpoints) of any engine with a serving capability, serves an OpenAI-compatible endpoint in
 * front of them and routes each request with a bandit (@kerneltune/gateway). Routing decisions and per-arm statistics are
 * stored as a deployment, which the dashboard shows. Runs until SIGTERM or SIGINT, then drains,
 * stops every server and exits 0.
 */
import { resolve } from 'node:path'
import { POLICY_KINDS, type PolicyKind } from '@kerneltune/bandit'
import { defaultDatabaseUrl, gatewayStatusJson, startGatewayDeployment } from '@kerneltune/compose/node'
import { DEFAULT_SERVING_ENGINE, SERVING_ENGINE_NAMES, servingModelFile } from '@kerneltune/compose'
import { DEFAULT_LIMITS, DEFAULT_TIMEOUTS, policyInput } from '@kerneltune/gateway'
import { DEFAULT_MAX_TOTAL_BODY_BYTES, type GatewayStatus } from '@kerneltune/gateway/node'
import { formatSlo, parseSlo } from '@kerneltune/serving'
import { usageError } from '../cli/args.ts'
import { defineCommand } from '../cli/command.ts'
import { fmt, table } from '../cli/output.ts'
import { EXIT } from '../cli/run.ts'

const MIB = 1 << 20

/** A chat-like budget for a small model on a CPU; give --slo for yours. */
export const DEFAULT_SLO = 'ttft_p99_ms=1000,tpot_p99_ms=100'

function sloOf(text: string) {
  try {
    return parseSlo(text)
  } catch (e) {
    throw usageError(`--slo: ${e instanceof Error ? e.message : String(e)}`)
  }
}

function render(s: GatewayStatus): string {
  return table(s.arms.map((a) => [
    `${a.arm}${a.fallback ? ' (fallback)' : ''}`, a.up ? (a.suspended ? 'suspended' : 'up') : 'down', a.requests, `${fmt(a.share * 100, 1)}%`, a.misses,
    a.meanTtftMs === null ? '-' : fmt(a.meanTtftMs, 1), a.meanTpotMs === null ? '-' : fmt(a.meanTpotMs, 2), `${fmt(a.posterior.mean, 3)}`, a.server.pid ?? a.server.baseUrl ?? '-',
  ]), ['arm', 'state', 'requests', 'share', 'misses', 'TTFT ms', 'TPOT ms', 'posterior', 'server'])
}

export const gatewayCommand = defineCommand({
  name: 'gateway',
  summary: 'Serve an OpenAI-compatible endpoint that routes live requests among server configurations of one engine (any engine with a serving capability, picked with --engine) with a bandit, and keeps tuning while it serves.',
  description:
    'Launches one server per arm (the engine\'s server, where installed, serving --gguf for an engine that loads a GGUF file, else --model) (or uses running servers), then serves POST /v1/completions and /v1/chat/completions (streamed or not): each request goes to the arm the policy picks (Thompson sampling by default) and the arm\'s answer is passed back byte for byte. A request\'s reward is what it experienced against the latency objectives (--slo): 0.5 when it met them all, plus 0.5 × the mean headroom under each bound; a failed request earns 0. Guardrails: the defaults arm is the fallback; an arm whose objective-miss rate over its last --suspend-window requests exceeds the defaults\' by --suspend-margin with --suspend-confidence is suspended and probed at --retry-rate; a crashed server is relaunched in the background; a request whose arm fails before its first byte is retried once on another arm, unless the arm\'s server died during it (the request is then never sent to another arm). Arms are judged only on what is theirs: a request the gateway refuses (over --max-body-mb, nested deeper than 64, not UTF-8, a token limit that is not an integer or is over --max-tokens-cap) gets a 4xx and reaches no arm; an answer every arm tried refuses is the client\'s and is passed on; a client that leaves is counted apart. A request without a token limit (or -1) gets --max-tokens-cap. Access: no CORS unless --allow-origin; on a loopback --host only loopback Host names; --token / KERNELTUNE_GATEWAY_TOKEN makes every route but /health need it. GET /metrics gives requests, misses, traffic share and the posterior per arm; GET /gateway/status the same as JSON. Decisions and per-arm statistics are stored as a deployment (the dashboard\'s deployment card shows them). SIGTERM or SIGINT drains in-flight requests, stops every server and exits 0.',
  flags: [
    { name: 'engine', type: 'string', description: 'Engine of the arms: any engine with a serving capability, launched from its translation of each arm\'s combination.', choices: SERVING_ENGINE_NAMES, default: DEFAULT_SERVING_ENGINE },
    { name: 'gguf', type: 'string', description: 'An engine that loads a GGUF file (the default engine): the model every launched arm serves.', valueName: 'FILE' },
    { name: 'model', type: 'string', description: 'An engine that takes a model id: the model every launched arm serves (a model id or path, as the engine takes it).', valueName: 'MODEL' },
    { name: 'arms', type: 'string', description: 'Comma-separated arms: defaults, recommended, top:N (from --run), {"threads":"1"}, NAME={...}, NAME=http://host:port. Default: defaults.', valueName: 'LIST' },
    { name: 'endpoint', type: 'list', description: 'A running server to add as an arm (repeatable).', valueName: 'URL' },
    { name: 'run', type: 'string', description: 'The stored run that recommended and top:N come from.', valueName: 'RUN_ID' },
    { name: 'fallback', type: 'string', description: 'The safe arm (default: defaults, else the first arm).', valueName: 'ARM' },
    { name: 'slo', type: 'string', description: `Latency objectives, metric_stat_unit=value (metrics ttft, tpot, itl, e2e; stats mean, p50, p90, p95, p99). Default ${DEFAULT_SLO}.`, valueName: 'LIST' },
    { name: 'policy', type: 'string', description: 'Bandit policy.', choices: [...POLICY_KINDS], default: 'thompson' },
    { name: 'gamma', type: 'number', description: 'Discount of discounted-ucb / discounted-thompson (memory about 1/(1-gamma) requests).', min: 0.000001, max: 0.999999 },
    { name: 'policy-window', type: 'integer', description: 'Requests sliding-window-ucb remembers.', min: 1 },
    { name: 'epsilon', type: 'number', description: 'Exploration probability of epsilon-greedy.', min: 0, max: 1 },
    { name: 'suspend-window', type: 'integer', description: 'Recent requests per arm the suspension test looks at.', default: 40, min: 2 },
    { name: 'suspend-margin', type: 'number', description: 'Miss-rate excess over the defaults that counts as worse.', default: 0.1, min: 0, max: 1 },
    { name: 'suspend-confidence', type: 'number', description: 'One-sided confidence of the suspension test.', default: 0.95, min: 0.5, max: 0.9999 },
    { name: 'retry-rate', type: 'number', description: 'Share of requests that probe a suspended arm.', default: 0.05, min: 0, max: 1 },
    { name: 'seed', type: 'integer', description: 'Seed of the policy\'s draws.', default: 1, min: 0 },
    { name: 'host', type: 'string', description: 'Address to listen on.', default: '127.0.0.1' },
    { name: 'port', type: 'integer', description: 'Port to listen on (0: a free one).', default: 8000, min: 0, max: 65535 },
    { name: 'db', type: 'string', description: 'Store for the deployment (default: $KERNELTUNE_DATABASE_URL, else $XDG_DATA_HOME/kerneltune/kerneltune.db).', valueName: 'PATH' },
    { name: 'tenant', type: 'string', description: 'Tenant of the deployment (default $KERNELTUNE_TENANT or default).' },
    { name: 'deployment', type: 'string', description: 'Record into this existing deployment instead of creating one.', valueName: 'ID' },
    { name: 'name', type: 'string', description: 'Name of the deployment created (default: gateway <model file>).' },
    { name: 'save-every', type: 'number', description: 'Seconds between saves of decisions and statistics to the store.', default: 5, min: 0.1 },
    { name: 'ready-timeout', type: 'number', description: 'Seconds to wait for each server to be ready.', default: 120, min: 1 },
    { name: 'drain-timeout', type: 'number', description: 'Seconds SIGTERM waits for in-flight requests.', default: 30, min: 0 },
    // What is forwarded: bounded, so that one request cannot take down every arm or the gateway's memory.
    { name: 'max-body-mb', type: 'number', description: 'Largest request body in MiB (413 above it).', default: DEFAULT_LIMITS.maxBodyBytes / MIB, min: 0.001, max: 1024, valueName: 'MB' },
    { name: 'max-total-body-mb', type: 'number', description: 'MiB of request bodies held at once, over all requests (413 past it).', default: DEFAULT_MAX_TOTAL_BODY_BYTES / MIB, min: 0.001, max: 16384, valueName: 'MB' },
    { name: 'max-tokens-cap', type: 'integer', description: 'Most tokens one request may generate: what a request without max_tokens (or with -1) gets; a larger limit is refused with 400.', default: DEFAULT_LIMITS.maxTokens, min: 1, valueName: 'N' },
    // Who may call it.
    { name: 'token', type: 'string', description: 'Bearer token every route but /health requires (at least 16 characters; prefer KERNELTUNE_GATEWAY_TOKEN: a flag shows in ps). OpenAI clients send it as their API key.', valueName: 'TOKEN' },
    { name: 'allow-origin', type: 'list', description: 'A web origin whose pages may call the gateway (CORS), e.g. http://localhost:5173; repeatable. Default none: requests from web pages are refused.', valueName: 'ORIGIN' },
    { name: 'headers-timeout', type: 'number', description: 'Seconds a client has to send the request line and headers.', default: DEFAULT_TIMEOUTS.headersTimeoutMs / 1000, min: 0.1, max: 3600, valueName: 'S' },
    { name: 'request-timeout', type: 'number', description: 'Seconds a client has to send the whole request, body included (not the answer: streams stay open).', default: DEFAULT_TIMEOUTS.requestTimeoutMs / 1000, min: 0.1, max: 3600, valueName: 'S' },
    { name: 'keep-alive-timeout', type: 'number', description: 'Seconds an idle keep-alive connection stays open.', default: DEFAULT_TIMEOUTS.keepAliveTimeoutMs / 1000, min: 0.1, max: 3600, valueName: 'S' },
  ],
  examples: [
    'kerneltune gateway --gguf m.gguf --arms defaults,\'{"parallel":"1"}\',\'{"threads":"1"}\' --slo ttft_p99_ms=500,tpot_p99_ms=50',
    'kerneltune gateway --gguf m.gguf --run 3f2a… --arms defaults,recommended,top:2 --port 8000',
    'kerneltune gateway --arms defaults=http://127.0.0.1:8080 --endpoint http://127.0.0.1:8081 --policy discounted-thompson --json',
    'KERNELTUNE_GATEWAY_TOKEN=$(openssl rand -hex 32) kerneltune gateway --gguf m.gguf --max-tokens-cap 1024 --max-body-mb 2 --allow-origin http://localhost:5173',
  ],
  jsonOutput: 'Two JSON lines on stdout. When serving: { event: "ready", deploymentId, url, policy, fallback, objectives, arms: [{ arm, combo, pid, baseUrl, version, argv, ... }], notes }. After SIGTERM/SIGINT: { event: "stopped", deploymentId, url, policy, fallback, objectives, totals: { requests, failed, clientErrors, clientAborts, retries, inFlight, bodyBytesHeld, relaunches, staleConnections }, arms: [{ arm, fallback, up, suspended, requests, failures, misses, retriedAway, clientAborts, share, meanReward, meanTtftMs, meanTpotMs, recentMissRate, posterior: { mean, sd, weight }, suspensions, crashes, combo, pid, baseUrl, version, launches, argv }] }',
  async run(ctx) {
    const f = ctx.flags
    const objectives = sloOf(f.slo ?? DEFAULT_SLO)
    const engine = f.engine ?? DEFAULT_SERVING_ENGINE
    // An engine that serves a local file takes it as --gguf (resolved here); the others a model id as --model.
    const file = servingModelFile(engine)
    const ms = (s: number | undefined) => (s === undefined ? undefined : Math.round(s * 1000))
    const g = await startGatewayDeployment({
      engine, model: file ? (f.gguf ? resolve(ctx.io.cwd, f.gguf) : undefined) : f.model, modelFlag: file ? `--${file} FILE` : '--model MODEL',
      arms: f.arms, endpoints: f.endpoint ?? [], runId: f.run, fallback: f.fallback, objectives,
      policy: policyInput((f.policy ?? 'thompson') as PolicyKind, f), seed: f.seed ?? 1,
      guard: { window: f.suspendWindow ?? 40, margin: f.suspendMargin ?? 0.1, confidence: f.suspendConfidence ?? 0.95, retryRate: f.retryRate ?? 0.05 },
      maxBodyMb: f.maxBodyMb, maxTotalBodyMb: f.maxTotalBodyMb, maxTokens: f.maxTokensCap,
      timeouts: { headersTimeoutMs: ms(f.headersTimeout), requestTimeoutMs: ms(f.requestTimeout), keepAliveTimeoutMs: ms(f.keepAliveTimeout) },
      token: f.token ?? (ctx.io.env.KERNELTUNE_GATEWAY_TOKEN || undefined), allowOrigins: f.allowOrigin ?? [],
      host: f.host ?? '127.0.0.1', port: f.port ?? 8000, readyTimeoutMs: (f.readyTimeout ?? 120) * 1000, drainTimeoutMs: (f.drainTimeout ?? 30) * 1000, saveEveryMs: (f.saveEvery ?? 5) * 1000,
      databaseUrl: f.db ? resolve(ctx.io.cwd, f.db) : defaultDatabaseUrl(ctx.io.env), tenant: f.tenant ?? ctx.io.env.KERNELTUNE_TENANT ?? 'default', deployment: f.deployment, name: f.name,
      env: ctx.io.env, log: (l) => ctx.io.stderr(`kerneltune gateway: ${l}\n`),
    })
    if (ctx.json) ctx.io.stdout(JSON.stringify({ event: 'ready', deploymentId: g.deploymentId, ...gatewayStatusJson(g.status()), totals: undefined, notes: g.notes }) + '\n')
    else {
      ctx.io.stderr(`kerneltune gateway: serving on ${g.url} (deployment ${g.deploymentId}, ${g.status().policy} policy, objectives ${formatSlo(objectives)})\n${render(g.status())}\n`)
      for (const n of g.notes) ctx.io.stderr(`note: ${n}\n`)
    }
    const sig = await new Promise<string>((done) => {
      process.once('SIGTERM', () => done('SIGTERM'))
      process.once('SIGINT', () => done('SIGINT'))
    })
    ctx.io.stderr(`kerneltune gateway: ${sig}: draining ${g.status().totals.inFlight} in-flight request(s), then stopping every server\n`)
    const final = await g.stop()
    if (ctx.json) ctx.io.stdout(JSON.stringify({ event: 'stopped', deploymentId: g.deploymentId, ...gatewayStatusJson(final) }) + '\n')
    else ctx.io.stderr(`kerneltune gateway: stopped after ${final.totals.requests} request(s), ${final.totals.failed} failed, ${final.totals.retries} retried\n${render(final)}\n`)
    return EXIT.OK
  },
})
