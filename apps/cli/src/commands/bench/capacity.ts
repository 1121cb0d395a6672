/**
 * `kerneltune bench capacity`: the highest open-loop request rate or closed-loop concurrency at
 * which a server meets the latency objectives. The search, its measurements and the stored run are
 * compose's benchCapacity; here: flags, the call, the printing.
 */
import { capacityJson, capacityLine, describeSlo, describeViolation, levelText, SERVING_APIS, type CapacityResult, type ServingApi } from '@kerneltune/serving'
import type { CapacityFigures } from '@kerneltune/serving/node'
import { usageError } from '../../cli/args.ts'
import { defineCommand } from '../../cli/command.ts'
import { fmt, keyValues, table } from '../../cli/output.ts'
import { EXIT } from '../../cli/run.ts'
import { objectivesFromFlags, writeRecords } from '../shared/objectives-flags.ts'
import { notStoredNote, SERVER_TARGET_FLAGS, STORE_FLAGS, storedLine } from './target-flags.ts'

// Kept for the sweep's capacity reports, which print the same JSON and line.
export { capacityJson, capacityLine }

export function renderCapacity(c: CapacityResult<CapacityFigures>): string {
  const rows = c.points.map((p) => [
    levelText(c.unit, p.level), p.phase === 'bisect' ? `bisect #${p.repeat + 1}` : 'bracket', `${p.figures.requests.completed}/${p.figures.requests.completed + p.figures.requests.failed}`,
    fmt(p.figures.ttftMs.p99, 1), fmt(p.figures.tpotMs.p99, 1), fmt(p.figures.requestThroughput, 2), fmt(p.figures.goodput.requestsPerSecond, 2), p.feasible ? 'met' : p.figures.violations.map(describeViolation).join('; '),
  ])
  return table(rows, ['level', 'phase', 'ok', 'TTFT p99 ms', 'TPOT p99 ms', 'req/s', 'goodput', 'objectives']) + capacityLine(c) + '\n'
}

export const benchCapacity = defineCommand({
  name: 'capacity',
  summary: 'Find the highest request rate (or concurrency) at which a server meets latency objectives: bracketing, then bisection with repeats at the boundary.',
  description:
    'Launches the --engine\'s server with the GGUF (or uses --endpoint / --launch, as bench serve does) and searches the load at which the --slo objectives stop holding. --by rate: open loop, Poisson arrivals at a rate in requests/s (seeded); --by concurrency: closed loop. From --start the level doubles while the objectives hold (halves while they do not) until they are bracketed; bisection then narrows the bracket (rates: geometric midpoints, to --tolerance relative width; concurrency: to adjacent whole numbers), measuring each bisection level --repeats times and judging it by the majority, since near the boundary one measurement is a coin toss. Each rate measurement sends at least --min-seconds of arrivals (a fixed request count gets shorter as the rate grows, too short for an overloaded server\'s queue to show). A level meets the objectives when every stated statistic is within its limit and no request failed. The capacity is the highest level judged to meet them; the interval is [that level, the lowest level judged to miss them). Every measurement is reported with its figures; --records writes every request.',
  flags: [
    ...SERVER_TARGET_FLAGS,
    { name: 'slo', type: 'string', description: 'Latency objectives, NAME=MS comma-separated (TTFT, TPOT, ITL, E2E at mean, p50, p90, p95, p99), e.g. ttft_p99_ms=500,tpot_p99_ms=50. Required.', valueName: 'NAME=MS[,...]' },
    { name: 'by', type: 'string', description: 'rate: open loop, Poisson arrivals (capacity in req/s). concurrency: closed loop (capacity in requests in flight).', choices: ['rate', 'concurrency'], default: 'rate' },
    { name: 'start', type: 'number', description: 'First level tried (default 1).', min: 0.001 },
    { name: 'min', type: 'number', description: 'Lowest level tried (rate default 0.05, concurrency 1).', min: 0.001 },
    { name: 'max', type: 'number', description: 'Highest level tried (rate default 1000, concurrency 1024).', min: 0.001 },
    { name: 'growth', type: 'number', description: 'Bracketing factor between levels.', default: 2, min: 1.01 },
    { name: 'tolerance', type: 'number', description: 'Bisection stops at this interval width (rate: relative to the low end, default 0.1; concurrency: 1).', min: 0.001 },
    { name: 'repeats', type: 'integer', description: 'Measurements per bisection level, judged by the majority.', default: 3, min: 1, max: 99 },
    { name: 'max-measurements', type: 'integer', description: 'Measurements at most, all phases.', default: 40, min: 1, max: 10000 },
    { name: 'requests', type: 'integer', description: 'Measured requests per measurement (closed loop: at least two per stream).', default: 24, min: 1, max: 100000 },
    { name: 'min-seconds', type: 'number', description: 'Rate: at least this many seconds of arrivals per measurement (rate x seconds requests when that is more than --requests): above the service rate a queue needs time to build.', default: 4, min: 0, max: 3600 },
    { name: 'warmup', type: 'integer', description: 'Warm-up requests before the first measurement (not counted).', default: 1, min: 0, max: 1000 },
    { name: 'prompt-tokens', type: 'integer', description: 'Prompt length of each request (synthetic token ids).', default: 64, min: 1 },
    { name: 'output-tokens', type: 'integer', description: 'Tokens generated per request (exactly: ignore_eos).', default: 32, min: 1 },
    { name: 'api', type: 'string', description: 'OpenAI API to load.', choices: SERVING_APIS, default: 'completions' },
    { name: 'seed', type: 'integer', description: 'Seed of prompts and arrival times.', default: 1, min: 0 },
    { name: 'ready-timeout', type: 'number', description: 'Seconds to wait for the server to be ready.', default: 120, min: 1 },
    { name: 'records', type: 'string', description: 'Write one JSON line per measured request (candidate 0, level, repeat, ok, ttftMs, tpotMs, e2eMs, outputTokens, startMs, itlMs) to this file.', valueName: 'FILE' },
    ...STORE_FLAGS,
  ],
  examples: [
    'kerneltune bench capacity --gguf m.gguf --slo ttft_p99_ms=1000,tpot_p99_ms=200 --by rate --start 2',
    "kerneltune bench capacity --gguf m.gguf --combo '{\"parallel\":\"4\"}' --slo ttft_p99_ms=500 --by concurrency --json",
    'kerneltune bench capacity --endpoint http://127.0.0.1:8080 --slo e2e_p90_ms=3000 --records capacity.jsonl',
  ],
  jsonOutput:
    '{ ok, runId (the stored run, one combination per measurement, unless --no-store: kerneltune run show RUN_ID), notStored? (why no run was stored), engine, device, model: { path } | null, server: { argv, version, pid, baseUrl, launched }, workload: { api, promptTokens, outputTokens, requests, warmups, seed }, slo: [{ name, metric, stat, limitMs }], capacity: { value (null: none), low, high (null: not reached), unit: "req/s" | "concurrency", stop: converged | max | min | budget, points: [{ level, phase: bracket | bisect, repeat, feasible, requests, durationS, ttftMs, tpotMs, itlMs, e2eMs, requestThroughput, outputTokensPerSecond, goodput: { requestsPerSecond, met }, violations: [{ metric, limit, value }] }] }, notes }',
  async run(ctx) {
    const f = ctx.flags
    if (f.slo === undefined) throw usageError('bench capacity needs the objectives whose limit it finds: --slo NAME=MS[,...], e.g. --slo ttft_p99_ms=500,tpot_p99_ms=50')
    const objectives = objectivesFromFlags({ slo: f.slo })!
    const { benchCapacity } = await import('@kerneltune/compose/bench')
    const r = await benchCapacity({
      ...f, cwd: ctx.io.cwd, env: ctx.io.env, engine: f.engine ?? SERVER_TARGET_FLAGS[0].default, objectives, by: f.by === 'concurrency' ? 'concurrency' : 'rate', api: (f.api ?? 'completions') as ServingApi,
      growth: f.growth ?? 2, repeats: f.repeats ?? 3, maxMeasurements: f.maxMeasurements ?? 40, requests: f.requests ?? 24, minSeconds: f.minSeconds ?? 4, warmup: f.warmup ?? 1,
      promptTokens: f.promptTokens ?? 64, outputTokens: f.outputTokens ?? 32, seed: f.seed ?? 1, readyTimeout: f.readyTimeout ?? 120,
      onProgress: (m) => ctx.io.stderr(`bench capacity: ${m}\n`),
    })
    if (f.records) ctx.io.stderr(`bench capacity: ${r.records.length} request records written to ${await writeRecords(ctx.io, f.records, r.records)}\n`)
    ctx.io.stderr(notStoredNote(r.stored, 'capacity'))
    if (ctx.json) ctx.printJson(r.json)
    else ctx.io.stdout(keyValues([['device', r.device], ['server', `${r.server.version}${r.server.pid ? ` (pid ${r.server.pid})` : ''}`], ['command', r.server.argv.join(' ') || r.server.baseUrl], ['objectives', describeSlo(objectives.slo)]]) + renderCapacity(r.capacity) + storedLine(r.stored))
    return EXIT.OK
  },
})
