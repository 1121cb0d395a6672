/**
 * `kerneltune bench capacity`: the highest open-loop request rate (Poisson arrivals) or closed-loop
 * concurrency at which a server meets the latency objectives, by bracketing then bisection with
 * repeated measurements at the boundary (@kerneltune/serving's searchCapacity), reported with its
 * interval and every measurement it rests on.
 */
import { resolve } from 'node:path'
import { describeSlo, describeViolation, recordLine, SERVING_APIS, type CapacityResult, type CapacityUnit, type LoadResult, type RecordLine, type RequestRecord, type ServingApi } from '@kerneltune/serving'
import { machineDevice, openServer, serverCapacity, type CapacityFigures } from '@kerneltune/serving/node'
import { usageError } from '../../cli/args.ts'
import { defineCommand } from '../../cli/command.ts'
import { fmt, keyValues, table } from '../../cli/output.ts'
import { EXIT } from '../../cli/run.ts'
import { objectivesFromFlags, writeRecords } from '../shared/objectives-flags.ts'
import { DB_FLAG, NO_STORE_FLAG, storeBenchRun } from './bench-run.ts'
import { capacityLine, levelText } from './capacity-line.ts'
import { parseCombo } from './serve.ts'
import { serverTarget } from './serve-target.ts'
import { SERVER_TARGET_FLAGS } from './target-flags.ts'

export { capacityLine }

/** A capacity result as --json gives it: each point's level and verdict next to its figures. */
export function capacityJson(c: CapacityResult<CapacityFigures>) {
  return { value: c.value, low: c.low, high: c.high, unit: c.unit, stop: c.stop, points: c.points.map((p) => ({ level: p.level, phase: p.phase, repeat: p.repeat, feasible: p.feasible, ...p.figures })) }
}

export function renderCapacity(c: CapacityResult<CapacityFigures>): string {
  const rows = c.points.map((p) => [
    levelText(c.unit, p.level),
    p.phase === 'bisect' ? `bisect #${p.repeat + 1}` : 'bracket',
    `${p.figures.requests.completed}/${p.figures.requests.completed + p.figures.requests.failed}`,
    fmt(p.figures.ttftMs.p99, 1),
    fmt(p.figures.tpotMs.p99, 1),
    fmt(p.figures.requestThroughput, 2),
    fmt(p.figures.goodput.requestsPerSecond, 2),
    p.feasible ? 'met' : p.figures.violations.map(describeViolation).join('; '),
  ])
  return table(rows, ['level', 'phase', 'ok', 'TTFT p99 ms', 'TPOT p99 ms', 'req/s', 'goodput', 'objectives']) + capacityLine(c) + '\n'
}

export const benchCapacity = defineCommand({
  name: 'capacity',
  summary: 'Find the highest request rate (or concurrency) at which a server meets latency objectives: bracketing, then bisection with repeats at the boundary.',
  description:
    'Launches llama-server with the GGUF (or uses --endpoint / --launch, as bench serve does) and searches the load at which the --slo objectives stop holding. --by rate: open loop, Poisson arrivals at a rate in requests/s (seeded); --by concurrency: closed loop. From --start the level doubles while the objectives hold (halves while they do not) until they are bracketed; bisection then narrows the bracket (rates: geometric midpoints, to --tolerance relative width; concurrency: to adjacent whole numbers), measuring each bisection level --repeats times and judging it by the majority, since near the boundary one measurement is a coin toss. Each rate measurement sends at least --min-seconds of arrivals (a fixed request count gets shorter as the rate grows, too short for an overloaded server\'s queue to show). A level meets the objectives when every stated statistic is within its limit and no request failed. The capacity is the highest level judged to meet them; the interval is [that level, the lowest level judged to miss them). Every measurement is reported with its figures; --records writes every request.',
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
    DB_FLAG,
    NO_STORE_FLAG,
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
    const { slo } = objectives
    const unit: CapacityUnit = f.by === 'concurrency' ? 'concurrency' : 'req/s'
    const whole = (name: string, x: number | undefined) => {
      if (unit === 'concurrency' && x !== undefined && !Number.isInteger(x)) throw usageError(`--by concurrency: --${name} is a whole number of requests in flight, got ${x}`)
      return x
    }
    const start = whole('start', f.start) ?? 1
    const min = whole('min', f.min)
    const max = whole('max', f.max)
    const target = serverTarget(ctx.io, f)
    const combo = parseCombo(f.combo)
    const api = (f.api ?? 'completions') as ServingApi
    const workload = { kind: 'synthetic' as const, promptTokens: f.promptTokens ?? 64, outputTokens: f.outputTokens ?? 32 }
    const server = await openServer({ target, combo, readyTimeoutMs: (f.readyTimeout ?? 120) * 1000, onProgress: (m) => ctx.io.stderr(`bench capacity: ${m}\n`) })
    const records: RecordLine[] = []
    // Every measurement's load run, in the search's order: the stored run's combinations.
    const loads: { level: number; repeat: number; run: LoadResult }[] = []
    const started = Date.now()
    let c: CapacityResult<CapacityFigures>
    try {
      ctx.io.stderr(`bench capacity: objectives ${describeSlo(slo)}; searching the ${unit === 'req/s' ? 'request rate' : 'concurrency'} from ${start}\n`)
      c = await serverCapacity({
        server, slo, unit, start, ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }),
        growth: f.growth ?? 2, ...(f.tolerance === undefined ? {} : { tolerance: f.tolerance }), repeats: f.repeats ?? 3, maxMeasurements: f.maxMeasurements ?? 40,
        requests: f.requests ?? 24,
        minSeconds: f.minSeconds ?? 4,
        load: { api, workload, requests: f.requests ?? 24, warmups: f.warmup ?? 1, seed: f.seed ?? 1 },
        onProgress: (m) => ctx.io.stderr(`bench capacity: ${m}\n`),
        onRecords: (level: number, repeat: number, rs: readonly RequestRecord[], run: LoadResult) => {
          loads.push({ level, repeat, run })
          if (f.records) records.push(...rs.map((r) => recordLine(0, r, { level, repeat })))
        },
      })
    } finally {
      await server.stop()
    }
    if (f.records) ctx.io.stderr(`bench capacity: ${records.length} request records written to ${await writeRecords(ctx.io, f.records, records)}\n`)
    const s = server.server
    const capacity = capacityJson(c)
    // A measurement is a combination (its level; a bisection's repeats numbered), judged as the search judged it: same requests, same objectives.
    const stored = f.noStore ? undefined : await storeBenchRun({
      io: ctx.io, db: f.db, command: 'capacity', target, server: s, device: machineDevice(), settings: combo, objectives, durationMs: Date.now() - started,
      workload: { promptTokens: workload.promptTokens, generatedTokens: workload.outputTokens },
      levels: loads.map((x, i) => ({ combo: { [unit === 'req/s' ? 'rate' : 'concurrency']: String(x.level), ...(c.points[i]?.phase === 'bisect' ? { repeat: String(x.repeat + 1) } : {}) }, loads: [x.run] })),
      extra: { capacity },
    })
    const runId = stored && 'runId' in stored ? stored.runId : undefined
    if (ctx.json) {
      ctx.printJson({
        ok: true,
        ...(runId ? { runId } : {}), ...(stored && 'notStored' in stored ? { notStored: stored.notStored } : {}),
        engine: f.engine ?? 'llamacpp',
        device: machineDevice(),
        model: f.gguf ? { path: resolve(ctx.io.cwd, f.gguf) } : null,
        server: { argv: s.argv, version: s.version, pid: s.pid ?? null, baseUrl: s.baseUrl, launched: s.launched },
        workload: { api, promptTokens: workload.promptTokens, outputTokens: workload.outputTokens, requests: f.requests ?? 24, warmups: f.warmup ?? 1, seed: f.seed ?? 1 },
        slo,
        capacity,
        notes: server.notes,
      })
    } else {
      ctx.io.stdout(keyValues([['device', machineDevice()], ['server', `${s.version}${s.pid ? ` (pid ${s.pid})` : ''}`], ['command', s.argv.join(' ') || s.baseUrl], ['objectives', describeSlo(slo)]]))
      ctx.io.stdout(renderCapacity(c))
      if (runId) ctx.io.stdout(`stored as run ${runId} (kerneltune run show ${runId})\n`)
    }
    return EXIT.OK
  },
})
