/**
 * `kerneltune bench serve`: launch llama-server (or use a running server, or launch any engine
 * from a command template) and measure it under OpenAI-compatible streaming load, at one or more
 * concurrency levels or an open-loop rate, with vLLM's metric definitions and the server's own
 * figures next to the client's.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Combo } from '@kerneltune/core'
import { parseDatasetJsonl, recordLine, SERVING_APIS, sloGoodput, type CandidateMetrics, type Distribution, type ServingApi, type WorkloadSpec } from '@kerneltune/serving'
import { runServingSession, type LevelResult, type LoadLevel, type SessionResult } from '@kerneltune/serving/node'
import { usageError } from '../../cli/args.ts'
import { defineCommand, type Io } from '../../cli/command.ts'
import { fmt, keyValues, table } from '../../cli/output.ts'
import { EXIT } from '../../cli/run.ts'
import { assess, OBJECTIVE_FLAGS, objectivesFromFlags, objectivesHeader, verdictOf, writeRecords, type Assessment, type CandidateAssessment, type Objectives } from '../shared/objectives-flags.ts'
import { DB_FLAG, NO_STORE_FLAG, storeBenchRun } from './bench-run.ts'
import { serverTarget } from './serve-target.ts'
import { SERVER_TARGET_FLAGS } from './target-flags.ts'

/** A distribution as the JSON output gives it (the fields vLLM prints). */
const dist = (d: Distribution) => ({ mean: d.mean, p50: d.p50, p90: d.p90, p95: d.p95, p99: d.p99, std: d.std, count: d.count })

export function levelJson(l: LevelResult, a?: CandidateAssessment) {
  const m = l.metrics
  return {
    mode: l.mode,
    ...(l.concurrency === undefined ? {} : { concurrency: l.concurrency }),
    ...(l.rate === undefined ? {} : { rate: l.rate }),
    requests: m.requests,
    durationS: m.durationS,
    ttftMs: dist(m.ttftMs),
    tpotMs: dist(m.tpotMs),
    itlMs: dist(m.itlMs),
    e2eMs: dist(m.e2eMs),
    requestThroughput: m.requestThroughput,
    outputTokensPerSecond: m.outputTokensPerSecond,
    totalTokensPerSecond: m.totalTokensPerSecond,
    tokens: { prompt: m.totalPromptTokens, output: m.totalOutputTokens, source: m.tokenSource },
    ...(m.goodput ? { goodput: m.goodput } : {}),
    // Under --slo the goodput is the objectives' (vLLM's definition over the stated limits).
    ...(a ? { feasible: a.feasible, violations: a.violations, ...(a.goodput ? { goodput: a.goodput } : {}) } : {}),
    serverReported: l.crossCheck.serverReported,
    crossCheck: { gaps: l.crossCheck.gaps, lines: l.crossCheck.lines },
    errors: m.errors,
  }
}

/** The JSON of a session: the last level's figures at the top (the heaviest load), every level in `levels`. */
export function sessionJson(s: SessionResult, a?: Assessment) {
  const last = s.levels.length - 1
  return {
    device: s.device,
    server: { argv: s.server.argv, version: s.server.version, slots: s.server.slots ?? null, pid: s.server.pid ?? null, baseUrl: s.server.baseUrl, launched: s.server.launched },
    ...levelJson(s.levels[last]!, a?.candidates[last]),
    ...(a ? { objective: a.objective, slo: a.slo, pareto: a.pareto, paretoAxes: a.paretoAxes } : {}),
    levels: s.levels.map((l, i) => levelJson(l, a?.candidates[i])),
    notes: s.notes,
  }
}

/** Each level as a candidate of the objectives: its metrics with goodput under the stated limits. */
export function assessLevels(s: SessionResult, o: Objectives): Assessment {
  const metrics: CandidateMetrics[] = s.levels.map((l) => ({ ...l.metrics, ...(o.slo.length ? { goodput: sloGoodput(l.records, o.slo, l.metrics.durationS) } : {}) }))
  return assess(metrics, o)
}

const levelName = (l: LevelResult) => (l.mode === 'open' ? `rate ${l.rate}/s` : `concurrency ${l.concurrency ?? 1}`)

/** Under the table: each level against the objectives, and the Pareto front. */
export function renderAssessment(s: SessionResult, o: Objectives, a: Assessment): string {
  let out = objectivesHeader(o)
  s.levels.forEach((l, i) => {
    const c = a.candidates[i]!
    out += `  ${levelName(l)}: ${verdictOf(c)}${c.goodput ? `; goodput ${fmt(c.goodput.requestsPerSecond, 2)} req/s (${c.goodput.met} of ${l.records.length} requests met every objective)` : ''}\n`
  })
  out += `Pareto front (${a.paretoAxes.throughput} against ${a.paretoAxes.latency}): ${a.pareto.map((i) => levelName(s.levels[i]!)).join(', ') || 'none'}\n`
  return out
}

export function renderSession(s: SessionResult): string {
  let out = keyValues([
    ['device', s.device],
    ['server', `${s.server.version}${s.server.pid ? ` (pid ${s.server.pid})` : ''}`],
    ['command', s.server.argv.join(' ') || s.server.baseUrl],
  ])
  const ms = (d: Distribution) => `${fmt(d.mean, 1)} / ${fmt(d.p50, 1)} / ${fmt(d.p99, 1)}`
  out += '\n' + table(
    s.levels.map((l) => [
      l.mode === 'open' ? `rate ${l.rate}/s` : `concurrency ${l.concurrency ?? 1}`,
      `${l.metrics.requests.completed}/${l.metrics.requests.completed + l.metrics.requests.failed}`,
      ms(l.metrics.ttftMs), ms(l.metrics.tpotMs), ms(l.metrics.itlMs), ms(l.metrics.e2eMs),
      fmt(l.metrics.requestThroughput, 2), fmt(l.metrics.outputTokensPerSecond, 1),
      l.crossCheck.serverReported.outputTokensPerSecond === undefined ? '-' : fmt(l.crossCheck.serverReported.outputTokensPerSecond, 1),
    ]),
    ['load', 'ok', 'TTFT ms mean/p50/p99', 'TPOT ms', 'ITL ms', 'E2E ms', 'req/s', 'out tok/s', 'server tok/s'],
  )
  const last = s.levels[s.levels.length - 1]!
  out += `\ncross-check (${last.mode === 'open' ? `rate ${last.rate}/s` : `concurrency ${last.concurrency ?? 1}`}):\n${last.crossCheck.lines.map((l) => `  ${l}`).join('\n')}\n`
  for (const l of s.levels) for (const e of l.metrics.errors) out += `failed requests: ${e.count}x ${e.message}\n`
  for (const n of s.notes) out += `note: ${n}\n`
  return out
}

export function parseLevels(concurrency: string | undefined, rate: number | undefined): LoadLevel[] {
  if (rate !== undefined) {
    if (concurrency !== undefined && !/^\d+$/.test(concurrency)) throw usageError('with --rate, --concurrency is one number: the cap on requests in flight')
    return [{ rate, ...(concurrency === undefined ? {} : { concurrency: Number(concurrency) }) }]
  }
  const list = (concurrency ?? '1,4').split(',').map((x) => x.trim())
  if (list.some((x) => !/^[1-9]\d*$/.test(x))) throw usageError(`--concurrency takes positive integers separated by commas, e.g. 1,4; got ${concurrency}`)
  return list.map((x) => ({ concurrency: Number(x) }))
}

export function parseCombo(json: string | undefined): Combo {
  if (json === undefined) return {}
  let v: unknown
  try {
    v = JSON.parse(json)
  } catch {
    throw usageError(`--combo is not JSON: ${json}`)
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string')) {
    throw usageError(`--combo maps settings to string values, e.g. {"threads":"2","parallel":"1"}; got ${json}`)
  }
  return v as Combo
}

export async function workloadFrom(io: Io, f: { dataset?: string | undefined; promptTokens?: number | undefined; outputTokens?: number | undefined }): Promise<WorkloadSpec> {
  const outputTokens = f.outputTokens ?? 32
  if (f.dataset) {
    const path = resolve(io.cwd, f.dataset)
    const text = await readFile(path, 'utf8').catch((e: Error) => {
      throw usageError(`--dataset: cannot read ${path}: ${e.message}`)
    })
    return { kind: 'dataset', entries: parseDatasetJsonl(text, path), outputTokens }
  }
  return { kind: 'synthetic', promptTokens: f.promptTokens ?? 64, outputTokens }
}

export const benchServe = defineCommand({
  name: 'serve',
  summary: 'Launch llama-server (or use a running server) and measure it under concurrent streaming load: TTFT, TPOT, ITL, latency, throughput.',
  description:
    'Starts llama-server with the GGUF (found through $KERNELTUNE_LLAMA_SERVER or the build cache of tooling/scripts/build-llama-server.sh) on a free loopback port with --metrics, waits for /health, and sends streamed /v1/completions (or chat) requests: closed loop at each --concurrency level, or open loop with Poisson arrivals at --rate. Every request asks for exactly --output-tokens (max_tokens with ignore_eos); token counts come from the server\'s usage. Metrics follow vLLM\'s benchmark_serving: TTFT, TPOT = (e2e - TTFT)/(tokens - 1), ITL (every gap between chunks), E2E latency (mean, p50, p90, p95, p99), request and output-token throughput, goodput under --slo objectives (vLLM\'s definition: requests per second whose every stated latency met its limit; the older --slo-ttft-ms, --slo-tpot-ms, --slo-e2e-ms still set per-request limits), each level\'s feasibility (every stated statistic within its limit, no failed request) and the Pareto front of throughput against latency. The server\'s own per-request timings and Prometheus counters are put next to the client figures. The server is stopped (and never orphaned) at the end.',
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
    DB_FLAG,
    NO_STORE_FLAG,
  ],
  examples: [
    'kerneltune model synth --params 15M --quant Q8_0 --out /tmp/m15.gguf && kerneltune bench serve --engine llamacpp --gguf /tmp/m15.gguf --concurrency 1,4 --requests 16 --prompt-tokens 64 --output-tokens 32',
    'kerneltune bench serve --gguf m.gguf --rate 4 --requests 40 --slo-ttft-ms 500 --json',
    "kerneltune bench serve --gguf m.gguf --combo '{\"threads\":\"2\",\"parallel\":\"1\"}'",
    'kerneltune bench serve --endpoint http://127.0.0.1:8080 --concurrency 1,4,8 --slo ttft_p99_ms=500,tpot_p99_ms=50 --records requests.jsonl',
    "kerneltune bench serve --launch 'docker run --gpus all -p {port}:8000 vllm/vllm-openai --model m' --concurrency 1,8,32",
  ],
  jsonOutput:
    '{ ok, runId (the stored run, unless --no-store: kerneltune run show RUN_ID), notStored? (why no run was stored: a server that does not say its model\'s size), engine, device, model: { path } | null, server: { argv, version, slots (llama-server\'s /props total_slots; null when the server does not say), pid, baseUrl, launched }, workload: { api, kind, promptTokens, outputTokens, requests, warmups, seed }, mode, concurrency?, rate?, requests: { completed, failed }, durationS, ttftMs, tpotMs, itlMs, e2eMs (each { mean, p50, p90, p95, p99, std, count }), requestThroughput, outputTokensPerSecond, totalTokensPerSecond, tokens: { prompt, output, source }, goodput?: { requestsPerSecond, met, objectives? }, feasible?, violations?: [{ metric, limit, value }], serverReported: { promptTokens?, outputTokens?, promptTokensPerSecond?, outputTokensPerSecond?, promptMs?, msPerOutputToken? }, crossCheck: { gaps, lines }, errors, levels: [same fields per level], objective?, slo?: [{ name, metric, stat, limitMs }], pareto?: [level indices], paretoAxes?: { throughput, latency }, notes } — the top-level figures are the last (heaviest) level; with --slo/--objective every level is a candidate: feasible, violations, goodput under the objectives',
  async run(ctx) {
    const f = ctx.flags
    const target = serverTarget(ctx.io, f)
    const levels = parseLevels(f.concurrency, f.rate)
    const workload = await workloadFrom(ctx.io, f)
    const combo = parseCombo(f.combo)
    const objectives = objectivesFromFlags(f)
    const started = Date.now()
    const perRequest = { ...(f.sloTtftMs === undefined ? {} : { ttftMs: f.sloTtftMs }), ...(f.sloTpotMs === undefined ? {} : { tpotMs: f.sloTpotMs }), ...(f.sloE2eMs === undefined ? {} : { e2eMs: f.sloE2eMs }) }
    const session = await runServingSession({
      target,
      combo,
      levels,
      load: {
        api: (f.api ?? 'completions') as ServingApi,
        workload,
        requests: f.requests ?? 16,
        warmups: f.warmup ?? 1,
        seed: f.seed ?? 1,
        ...(Object.keys(perRequest).length ? { objectives: perRequest } : {}),
      },
      readyTimeoutMs: (f.readyTimeout ?? 120) * 1000,
      onProgress: (m) => ctx.io.stderr(`bench serve: ${m}\n`),
    })
    const failed = session.levels.reduce((a, l) => a + l.metrics.requests.failed, 0)
    const assessment = objectives ? assessLevels(session, objectives) : undefined
    if (f.records) {
      const path = await writeRecords(ctx.io, f.records, session.levels.flatMap((l, i) => l.records.map((r) => recordLine(i, r, l.mode === 'open' ? { rate: l.rate } : { concurrency: l.concurrency ?? 1 }))))
      ctx.io.stderr(`bench serve: ${session.levels.reduce((a, l) => a + l.records.length, 0)} request records written to ${path}\n`)
    }
    // Each level one combination of a stored run, judged by the same objectives (bench-run.ts).
    const stored = f.noStore ? undefined : await storeBenchRun({
      io: ctx.io, db: f.db, command: 'serve', target, server: session.server, device: session.device, settings: combo, objectives, durationMs: Date.now() - started,
      workload: { promptTokens: f.promptTokens ?? 64, generatedTokens: f.outputTokens ?? 32 },
      levels: session.levels.map((l) => ({ combo: l.mode === 'open' ? { rate: String(l.rate), ...(l.concurrency === undefined ? {} : { concurrency: String(l.concurrency) }) } : { concurrency: String(l.concurrency ?? 1) }, loads: [l] })),
    })
    const runId = stored && 'runId' in stored ? stored.runId : undefined
    if (ctx.json) {
      ctx.printJson({
        ok: failed === 0,
        ...(runId ? { runId } : {}), ...(stored && 'notStored' in stored ? { notStored: stored.notStored } : {}),
        engine: f.engine ?? 'llamacpp',
        model: f.gguf ? { path: resolve(ctx.io.cwd, f.gguf) } : null,
        workload: { api: f.api ?? 'completions', kind: workload.kind, promptTokens: f.promptTokens ?? 64, outputTokens: f.outputTokens ?? 32, requests: f.requests ?? 16, warmups: f.warmup ?? 1, seed: f.seed ?? 1 },
        ...sessionJson(session, assessment),
      })
    } else {
      ctx.io.stdout(renderSession(session))
      if (objectives && assessment) ctx.io.stdout(renderAssessment(session, objectives, assessment))
      if (runId) ctx.io.stdout(`stored as run ${runId} (kerneltune run show ${runId})\n`)
    }
    return failed === 0 ? EXIT.OK : EXIT.FAILURE
  },
})
