/**
 * `kerneltune bench capacity` as one call: the highest open-loop request rate or closed-loop
 * concurrency at which a server meets the latency objectives (serving's serverCapacity: bracketing,
 * then bisection with repeats at the boundary), stored as a run with one combination per
 * measurement. The CLI parses flags, calls this and prints what it returns.
 */
import { resolve } from 'node:path'
import { KerneltuneError } from '@kerneltune/core'
import { capacityJson, describeSlo, recordLine, type CapacityResult, type CapacityUnit, type LoadResult, type Objectives, type RecordLine, type ServingApi } from '@kerneltune/serving'
import { machineDevice, openServer, serverCapacity, type CapacityFigures, type ServerInfo } from '@kerneltune/serving/node'
import { parseCombo } from './serve.node.ts'
import { answeredBy, storeBenchRun } from './store-run.node.ts'
import { servingEngine } from '../compose.node.ts'
import { benchTarget, type TargetFlags } from './target.node.ts'

export interface BenchCapacityOptions extends TargetFlags {
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly engine: string
  readonly combo?: string | undefined
  /** The objectives whose limit is searched (their slo). */
  readonly objectives: Objectives
  readonly by: 'rate' | 'concurrency'
  readonly start?: number | undefined
  readonly min?: number | undefined
  readonly max?: number | undefined
  readonly growth: number
  readonly tolerance?: number | undefined
  readonly repeats: number
  readonly maxMeasurements: number
  readonly requests: number
  readonly minSeconds: number
  readonly warmup: number
  readonly promptTokens: number
  readonly outputTokens: number
  readonly api: ServingApi
  readonly seed: number
  readonly readyTimeout: number
  readonly db?: string | undefined
  readonly noStore?: boolean | undefined
  readonly onProgress?: (message: string) => void
}

export interface BenchCapacityResult {
  readonly capacity: CapacityResult<CapacityFigures>
  readonly server: ServerInfo
  readonly device: string
  readonly records: readonly RecordLine[]
  readonly stored?: { readonly runId: string } | { readonly notStored: string }
  readonly json: Record<string, unknown>
}

export async function benchCapacity(o: BenchCapacityOptions): Promise<BenchCapacityResult> {
  const unit: CapacityUnit = o.by === 'concurrency' ? 'concurrency' : 'req/s'
  const whole = (name: string, x: number | undefined) => {
    if (unit === 'concurrency' && x !== undefined && !Number.isInteger(x)) throw new KerneltuneError('INVALID_INPUT', `--by concurrency: --${name} is a whole number of requests in flight, got ${x}`)
    return x
  }
  const start = whole('start', o.start) ?? 1
  const min = whole('min', o.min)
  const max = whole('max', o.max)
  const target = benchTarget(o.cwd, o, o.engine)
  const combo = parseCombo(o.combo)
  const { slo } = o.objectives
  const workload = { kind: 'synthetic' as const, promptTokens: o.promptTokens, outputTokens: o.outputTokens }
  const progress = o.onProgress ? { onProgress: o.onProgress } : {}
  const server = await openServer({ target, combo, readyTimeoutMs: o.readyTimeout * 1000, ...progress })
  const records: RecordLine[] = []
  // Every measurement's load run, in the search's order: the stored run's combinations.
  const loads: { level: number; repeat: number; run: LoadResult }[] = []
  const started = Date.now()
  let c: CapacityResult<CapacityFigures>
  let answered
  try {
    answered = target.kind === 'engine' ? target.engine : await answeredBy(server.server.baseUrl, servingEngine(o.engine))
    o.onProgress?.(`objectives ${describeSlo(slo)}; searching the ${unit === 'req/s' ? 'request rate' : 'concurrency'} from ${start}`)
    c = await serverCapacity({
      server, slo, unit, start, ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }),
      growth: o.growth, ...(o.tolerance === undefined ? {} : { tolerance: o.tolerance }), repeats: o.repeats, maxMeasurements: o.maxMeasurements,
      requests: o.requests, minSeconds: o.minSeconds,
      load: { api: o.api, workload, requests: o.requests, warmups: o.warmup, seed: o.seed },
      ...progress,
      onRecords: (level, repeat, rs, run) => {
        loads.push({ level, repeat, run })
        records.push(...rs.map((r) => recordLine(0, r, { level, repeat })))
      },
    })
  } finally {
    await server.stop()
  }
  const s = server.server
  const device = machineDevice()
  const capacity = capacityJson(c)
  // A measurement is a combination (its level; a bisection's repeats numbered), judged as the search judged it: same requests, same objectives.
  const stored = o.noStore ? undefined : await storeBenchRun({
    cwd: o.cwd, env: o.env, db: o.db, command: 'capacity', target, server: s, answered, device, settings: combo, objectives: o.objectives, durationMs: Date.now() - started,
    workload: { promptTokens: o.promptTokens, generatedTokens: o.outputTokens },
    levels: loads.map((x, i) => ({ combo: { [unit === 'req/s' ? 'rate' : 'concurrency']: String(x.level), ...(c.points[i]?.phase === 'bisect' ? { repeat: String(x.repeat + 1) } : {}) }, loads: [x.run] })),
    extra: { capacity },
  })
  const json = {
    ok: true,
    ...stored,
    engine: o.engine,
    device,
    model: o.gguf ? { path: resolve(o.cwd, o.gguf) } : null,
    server: { argv: s.argv, version: s.version, pid: s.pid ?? null, baseUrl: s.baseUrl, launched: s.launched },
    workload: { api: o.api, promptTokens: o.promptTokens, outputTokens: o.outputTokens, requests: o.requests, warmups: o.warmup, seed: o.seed },
    slo,
    capacity,
    notes: server.notes,
  }
  return { capacity: c, server: s, device, records, ...(stored ? { stored } : {}), json }
}
