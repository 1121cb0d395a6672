/**
 * `kerneltune bench serve`: a server (launched, running, or from a command template) measured under
 * OpenAI-compatible streaming load with vLLM's metric definitions. The measurement, the objectives'
 * verdict and the stored run are compose's benchServe; here: flags, the call, the printing.
 */
import { SERVING_APIS, type ServingApi } from '@kerneltune/serving'
import type { SessionResult } from '@kerneltune/serving/node'
import type { Assessment, Distribution, Objectives } from '@kerneltune/serving'
import { defineCommand } from '../../cli/command.ts'
import { fmt, keyValues, table } from '../../cli/output.ts'
import { EXIT } from '../../cli/run.ts'
import { OBJECTIVE_FLAGS, objectivesFromFlags, objectivesHeader, verdictOf, writeRecords } from '../shared/objectives-flags.ts'
import { notStoredNote, SERVER_TARGET_FLAGS, STORE_FLAGS, storedLine } from './target-flags.ts'

const levelName = (l: SessionResult['levels'][number]) => (l.mode === 'open' ? `rate ${l.rate}/s` : `concurrency ${l.concurrency ?? 1}`)
const ms = (d: Distribution) => `${fmt(d.mean, 1)} / ${fmt(d.p50, 1)} / ${fmt(d.p99, 1)}`

export function renderSession(s: SessionResult): string {
  let out = keyValues([['device', s.device], ['server', `${s.server.version}${s.server.pid ? ` (pid ${s.server.pid})` : ''}`], ['command', s.server.argv.join(' ') || s.server.baseUrl]])
  out += '\n' + table(s.levels.map((l) => {
    const m = l.metrics
    const server = l.crossCheck.serverReported.outputTokensPerSecond
    return [levelName(l), `${m.requests.completed}/${m.requests.completed + m.requests.failed}`, ms(m.ttftMs), ms(m.tpotMs), ms(m.itlMs), ms(m.e2eMs), fmt(m.requestThroughput, 2), fmt(m.outputTokensPerSecond, 1), server === undefined ? '-' : fmt(server, 1)]
  }), ['load', 'ok', 'TTFT ms mean/p50/p99', 'TPOT ms', 'ITL ms', 'E2E ms', 'req/s', 'out tok/s', 'server tok/s'])
  const last = s.levels[s.levels.length - 1]!
  out += `\ncross-check (${levelName(last)}):\n${last.crossCheck.lines.map((l) => `  ${l}`).join('\n')}\n`
  for (const l of s.levels) for (const e of l.metrics.errors) out += `failed requests: ${e.count}x ${e.message}\n`
  return out + s.notes.map((n) => `note: ${n}\n`).join('')
}

/** Under the table: each level against the objectives, and the Pareto front. */
function renderAssessment(s: SessionResult, o: Objectives, a: Assessment): string {
  return objectivesHeader(o) + s.levels.map((l, i) => {
    const c = a.candidates[i]!
    return `  ${levelName(l)}: ${verdictOf(c)}${c.goodput ? `; goodput ${fmt(c.goodput.requestsPerSecond, 2)} req/s (${c.goodput.met} of ${l.records.length} requests met every objective)` : ''}\n`
  }).join('') + `Pareto front (${a.paretoAxes.throughput} against ${a.paretoAxes.latency}): ${a.pareto.map((i) => levelName(s.levels[i]!)).join(', ') || 'none'}\n`
}

export const benchServe = defineCommand({
  name: 'serve',
  summary: "Launch an engine's server (or use a running one) and measure it under concurrent streaming load: TTFT, TPOT, ITL, latency, throughput.",
  description:
    'Starts the --engine\'s server with the GGUF (the binary found through its serving capability: the variable it names, its own lookup, PATH) on a free loopback port with its metrics on, waits until it is ready, and sends streamed /v1/completions (or chat) requests: closed loop at each --concurrency level, or open loop with Poisson arrivals at --rate. Every request asks for exactly --output-tokens (max_tokens with ignore_eos); token counts come from the server\'s usage. Metrics follow vLLM\'s benchmark_serving: TTFT, TPOT = (e2e - TTFT)/(tokens - 1), ITL (every gap between chunks), E2E latency (mean, p50, p90, p95, p99), request and output-token throughput, goodput under --slo objectives (vLLM\'s definition: requests per second whose every stated latency met its limit; the older --slo-ttft-ms, --slo-tpot-ms, --slo-e2e-ms still set per-request limits), each level\'s feasibility (every stated statistic within its limit, no failed request) and the Pareto front of throughput against latency. The server\'s own per-request timings and Prometheus counters are put next to the client figures. The server is stopped (and never orphaned) at the end.',
  flags: [
    ...SERVER_TARGET_FLAGS,
    { name: 'concurrency', type: 'string', description: 'Closed-loop concurrency levels, comma-separated (default 1,4); with --rate, the cap on requests in flight.', valueName: 'N[,N...]' },
    { name: 'rate', type: 'number', description: 'Open loop: Poisson arrivals at this many requests per second.', min: 0.001 },
    { name: 'requests', type: 'integer', description: 'Measured requests per level.', default: 16, min: 1, max: 100000 },
    { name: 'warmup', type: 'integer', description: 'Warm-up requests before the first level (not counted).', default: 1, min: 0, max: 1000 },
    { name: 'prompt-tokens', type: 'integer', description: 'Prompt length of each request (synthetic token ids).', default: 64, min: 1 },
    { name: 'output-tokens', type: 'integer', description: 'Tokens generated per request (exactly: ignore_eos).', default: 32, min: 1 },
    { name: 'dataset', type: 'string', description: 'JSONL prompts instead of synthetic ones: {"prompt": "...", "output_tokens": 64} per line.', valueName: 'FILE' },
    { name: 'api', type: 'string', description: 'OpenAI API to load.', choices: SERVING_APIS, default: 'completions' },
    { name: 'slo-ttft-ms', type: 'number', description: 'Goodput objective: time to first token at most this.', min: 0 },
    { name: 'slo-tpot-ms', type: 'number', description: 'Goodput objective: time per output token at most this.', min: 0 },
    { name: 'slo-e2e-ms', type: 'number', description: 'Goodput objective: end-to-end latency at most this.', min: 0 },
    { name: 'seed', type: 'integer', description: 'Seed of prompts and arrival times.', default: 1, min: 0 },
    { name: 'ready-timeout', type: 'number', description: 'Seconds to wait for the server to be ready.', default: 120, min: 1 },
    ...OBJECTIVE_FLAGS,
    ...STORE_FLAGS,
  ],
  examples: [
    'kerneltune model synth --params 15M --quant Q8_0 --out /tmp/m15.gguf && kerneltune bench serve --gguf /tmp/m15.gguf --concurrency 1,4 --requests 16 --prompt-tokens 64 --output-tokens 32',
    'kerneltune bench serve --gguf m.gguf --rate 4 --requests 40 --slo-ttft-ms 500 --json',
    "kerneltune bench serve --gguf m.gguf --combo '{\"threads\":\"2\",\"parallel\":\"1\"}'",
    'kerneltune bench serve --endpoint http://127.0.0.1:8080 --concurrency 1,4,8 --slo ttft_p99_ms=500,tpot_p99_ms=50 --records requests.jsonl',
    "kerneltune bench serve --launch 'docker run --gpus all -p {port}:8000 vllm/vllm-openai --model m' --concurrency 1,8,32",
  ],
  jsonOutput:
    '{ ok, runId (the stored run, unless --no-store: kerneltune run show RUN_ID), notStored? (why no run was stored: a server that does not say its model\'s size), engine, device, model: { path } | null, server: { argv, version, slots (the requests it serves at once, from its version probe; null when the server does not say), pid, baseUrl, launched }, workload: { api, kind, promptTokens, outputTokens, requests, warmups, seed }, mode, concurrency?, rate?, requests: { completed, failed }, durationS, ttftMs, tpotMs, itlMs, e2eMs (each { mean, p50, p90, p95, p99, std, count }), requestThroughput, outputTokensPerSecond, totalTokensPerSecond, tokens: { prompt, output, source }, goodput?: { requestsPerSecond, met, objectives? }, feasible?, violations?: [{ metric, limit, value }], serverReported: { promptTokens?, outputTokens?, promptTokensPerSecond?, outputTokensPerSecond?, promptMs?, msPerOutputToken? }, crossCheck: { gaps, lines }, errors, levels: [same fields per level], objective?, slo?: [{ name, metric, stat, limitMs }], pareto?: [level indices], paretoAxes?: { throughput, latency }, notes } — the top-level figures are the last (heaviest) level; with --slo/--objective every level is a candidate: feasible, violations, goodput under the objectives',
  async run(ctx) {
    const f = ctx.flags
    const objectives = objectivesFromFlags(f)
    const { benchServe } = await import('@kerneltune/compose/bench')
    const r = await benchServe({
      ...f, cwd: ctx.io.cwd, env: ctx.io.env, engine: f.engine ?? SERVER_TARGET_FLAGS[0].default, objectives, api: (f.api ?? 'completions') as ServingApi,
      requests: f.requests ?? 16, warmup: f.warmup ?? 1, promptTokens: f.promptTokens ?? 64, outputTokens: f.outputTokens ?? 32, seed: f.seed ?? 1, readyTimeout: f.readyTimeout ?? 120,
      onProgress: (m) => ctx.io.stderr(`bench serve: ${m}\n`),
    })
    if (f.records) ctx.io.stderr(`bench serve: ${r.records.length} request records written to ${await writeRecords(ctx.io, f.records, r.records)}\n`)
    ctx.io.stderr(notStoredNote(r.stored, 'serve'))
    if (ctx.json) ctx.printJson(r.json)
    else ctx.io.stdout(renderSession(r.session) + (objectives && r.assessment ? renderAssessment(r.session, objectives, r.assessment) : '') + storedLine(r.stored))
    return r.ok ? EXIT.OK : EXIT.FAILURE
  },
})
