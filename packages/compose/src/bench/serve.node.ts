/**
 * `kerneltune bench serve` as one call: get the server (launch the engine's, use a running one or
 * a template), put the load on it at each level, judge every level by the objectives, and store the
 * levels as a run. The CLI parses flags, calls this and prints what it returns.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { KerneltuneError, type Combo } from '@kerneltune/core'
import { assess, parseDatasetJsonl, recordLine, sloGoodput, type Assessment, type Objectives, type RecordLine, type ServingApi, type WorkloadSpec } from '@kerneltune/serving'
import { loadServer, machineDevice, openServer, type LoadLevel, type SessionResult } from '@kerneltune/serving/node'
import { sessionJson } from './json.ts'
import { answeredBy, storeBenchRun } from './store-run.node.ts'
import { servingEngine } from '../compose.node.ts'
import { benchTarget, type TargetFlags } from './target.node.ts'

const invalid = (message: string) => new KerneltuneError('INVALID_INPUT', message)

/** --concurrency (levels, or with --rate the cap on requests in flight) and --rate as load levels. */
export function parseLevels(concurrency: string | undefined, rate: number | undefined): LoadLevel[] {
  if (rate !== undefined) {
    if (concurrency !== undefined && !/^\d+$/.test(concurrency)) throw invalid('with --rate, --concurrency is one number: the cap on requests in flight')
    return [{ rate, ...(concurrency === undefined ? {} : { concurrency: Number(concurrency) }) }]
  }
  const list = (concurrency ?? '1,4').split(',').map((x) => x.trim())
  if (list.some((x) => !/^[1-9]\d*$/.test(x))) throw invalid(`--concurrency takes positive integers separated by commas, e.g. 1,4; got ${concurrency}`)
  return list.map((x) => ({ concurrency: Number(x) }))
}

/** --combo: the engine settings to launch with, a JSON object of strings. */
export function parseCombo(json: string | undefined): Combo {
  if (json === undefined) return {}
  let v: unknown
  try {
    v = JSON.parse(json)
  } catch {
    throw invalid(`--combo is not JSON: ${json}`)
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid(`--combo maps settings to string values, e.g. {"threads":"2","parallel":"1"}; got ${json}`)
  const combo: Record<string, string> = {}
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw invalid(`--combo maps settings to string values, e.g. {"threads":"2","parallel":"1"}; got ${json}`)
    combo[k] = x
  }
  return combo
}

async function workloadOf(cwd: string, f: { dataset?: string | undefined; promptTokens: number; outputTokens: number }): Promise<WorkloadSpec> {
  if (!f.dataset) return { kind: 'synthetic', promptTokens: f.promptTokens, outputTokens: f.outputTokens }
  const path = resolve(cwd, f.dataset)
  const text = await readFile(path, 'utf8').catch((e: Error) => {
    throw invalid(`--dataset: cannot read ${path}: ${e.message}`)
  })
  return { kind: 'dataset', entries: parseDatasetJsonl(text, path), outputTokens: f.outputTokens }
}

export interface BenchServeOptions extends TargetFlags {
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** The serving engine's registry name. */
  readonly engine: string
  readonly combo?: string | undefined
  readonly concurrency?: string | undefined
  readonly rate?: number | undefined
  readonly requests: number
  readonly warmup: number
  readonly promptTokens: number
  readonly outputTokens: number
  readonly dataset?: string | undefined
  readonly api: ServingApi
  readonly sloTtftMs?: number | undefined
  readonly sloTpotMs?: number | undefined
  readonly sloE2eMs?: number | undefined
  readonly seed: number
  /** Seconds to wait for a launched server. */
  readonly readyTimeout: number
  readonly objectives?: Objectives | undefined
  readonly db?: string | undefined
  readonly noStore?: boolean | undefined
  readonly onProgress?: (message: string) => void
}

export interface BenchServeResult {
  readonly ok: boolean
  readonly session: SessionResult
  readonly assessment?: Assessment
  /** One line per measured request, each level a candidate (--records). */
  readonly records: readonly RecordLine[]
  readonly stored?: { readonly runId: string } | { readonly notStored: string }
  /** What --json prints. */
  readonly json: Record<string, unknown>
}

/** Each level as a candidate of the objectives: its metrics with goodput under the stated limits. */
export function assessLevels(s: SessionResult, o: Objectives): Assessment {
  return assess(s.levels.map((l) => ({ ...l.metrics, ...(o.slo.length ? { goodput: sloGoodput(l.records, o.slo, l.metrics.durationS) } : {}) })), o)
}

export async function benchServe(o: BenchServeOptions): Promise<BenchServeResult> {
  const target = benchTarget(o.cwd, o, o.engine)
  const levels = parseLevels(o.concurrency, o.rate)
  const workload = await workloadOf(o.cwd, o)
  const combo = parseCombo(o.combo)
  const started = Date.now()
  const perRequest = { ...(o.sloTtftMs === undefined ? {} : { ttftMs: o.sloTtftMs }), ...(o.sloTpotMs === undefined ? {} : { tpotMs: o.sloTpotMs }), ...(o.sloE2eMs === undefined ? {} : { e2eMs: o.sloE2eMs }) }
  const load = { api: o.api, workload, requests: o.requests, warmups: o.warmup, seed: o.seed, ...(Object.keys(perRequest).length ? { objectives: perRequest } : {}) }
  // The serving session's steps (open, load, stop), with the engine asked while its server still answers.
  const server = await openServer({ target, combo, readyTimeoutMs: o.readyTimeout * 1000, ...(o.onProgress ? { onProgress: o.onProgress } : {}) })
  let session: SessionResult
  let answered
  try {
    answered = target.kind === 'engine' ? target.engine : await answeredBy(server.server.baseUrl, servingEngine(o.engine))
    const measured = await loadServer(server, { load, levels, ...(o.onProgress ? { onProgress: o.onProgress } : {}) })
    const launch = server.launched?.phases()
    session = { server: server.server, device: machineDevice(), levels: measured, notes: [...server.notes], ...(launch ? { launch } : {}) }
  } finally {
    await server.stop()
  }
  const failed = session.levels.reduce((a, l) => a + l.metrics.requests.failed, 0)
  const assessment = o.objectives ? assessLevels(session, o.objectives) : undefined
  const records = session.levels.flatMap((l, i) => l.records.map((r) => recordLine(i, r, l.mode === 'open' ? { rate: l.rate } : { concurrency: l.concurrency ?? 1 })))
  // Each level one combination of a stored run, judged by the same objectives.
  const stored = o.noStore ? undefined : await storeBenchRun({
    cwd: o.cwd, env: o.env, db: o.db, command: 'serve', target, server: session.server, answered, device: session.device, settings: combo, objectives: o.objectives, durationMs: Date.now() - started,
    workload: { promptTokens: o.promptTokens, generatedTokens: o.outputTokens },
    levels: session.levels.map((l) => ({ combo: l.mode === 'open' ? { rate: String(l.rate), ...(l.concurrency === undefined ? {} : { concurrency: String(l.concurrency) }) } : { concurrency: String(l.concurrency ?? 1) }, loads: [l] })),
  })
  const json = {
    ok: failed === 0,
    ...stored,
    engine: o.engine,
    model: o.gguf ? { path: resolve(o.cwd, o.gguf) } : null,
    workload: { api: o.api, kind: workload.kind, promptTokens: o.promptTokens, outputTokens: o.outputTokens, requests: o.requests, warmups: o.warmup, seed: o.seed },
    ...sessionJson(session, assessment),
  }
  return { ok: failed === 0, session, ...(assessment ? { assessment } : {}), records, ...(stored ? { stored } : {}), json }
}
