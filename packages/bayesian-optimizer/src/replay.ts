/**
 * Replays a measured search space (a brute-force CSV: parameter columns, then `status`, then
 * measured columns) as the objective: suggestions are looked up instead of measured. Parsing is
 * pure (from a string); reading the file is the caller's job.
 */
import { KerneltuneError, parseCsv, type ParamValue, type SearchConfig, type SearchParam } from '@kerneltune/core'
import { createSearch, type CreateSearchOptions, type StrategyName } from './searcher.ts'

export interface ReplayRow {
  readonly config: SearchConfig
  readonly ok: boolean
  readonly status: string
  /** Objective value (undefined when failed or not a number). */
  readonly value?: number
  /** Variance of the value's mean, from `<objective>_std` and `n_runs` when present. */
  readonly variance?: number
}

export interface ReplayTable {
  readonly params: SearchParam[]
  readonly objective: string
  readonly rows: ReplayRow[]
  /** Lowest successful value. */
  readonly optimum: number
}

const NUMERIC = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/

/** Parses a replay CSV. Parameter columns are those before `status`; numeric-looking values become numbers (ordinal parameters), others stay strings (categorical). */
export function parseReplayCsv(text: string, objective = 'time_ms'): ReplayTable {
  const { records, problems } = parseCsv(text)
  if (problems.length) throw new KerneltuneError('INVALID_FORMAT', `CSV line ${problems[0]!.line}: ${problems[0]!.message}`)
  if (records.length < 2) throw new KerneltuneError('INVALID_FORMAT', 'the CSV has no data rows; expected a header line and one row per configuration')
  const header = records[0]!.cells.map((h) => h.trim())
  const statusAt = header.indexOf('status')
  if (statusAt < 1) throw new KerneltuneError('INVALID_FORMAT', `the CSV header needs parameter columns followed by a "status" column; got: ${header.join(', ')}`)
  const objAt = header.indexOf(objective)
  if (objAt < 0) {
    throw new KerneltuneError('INVALID_INPUT', `objective column "${objective}" is not in the CSV; measured columns: ${header.slice(statusAt + 1).join(', ')}`)
  }
  const stdAt = header.indexOf(`${objective}_std`)
  const runsAt = header.indexOf('n_runs')
  const names = header.slice(0, statusAt)
  const raw = records.slice(1).map(({ line, cells }) => {
    if (cells.length !== header.length) throw new KerneltuneError('INVALID_FORMAT', `CSV line ${line} has ${cells.length} cells; the header has ${header.length}`)
    return cells.map((c) => c.trim())
  })
  const params: SearchParam[] = names.map((name, p) => {
    const distinct = [...new Set(raw.map((r) => r[p]!))]
    const numeric = distinct.every((v) => NUMERIC.test(v))
    const values: ParamValue[] = numeric ? distinct.map(Number).sort((a, b) => a - b) : distinct.sort()
    return { name, type: numeric ? 'ordinal' : 'categorical', values }
  })
  const numericParam = params.map((p) => p.type === 'ordinal')
  let optimum = Infinity
  const rows = raw.map((r): ReplayRow => {
    const config = Object.fromEntries(names.map((n, p) => [n, numericParam[p] ? Number(r[p]) : r[p]!]))
    const status = r[statusAt]!
    const v = Number(r[objAt])
    const ok = status === 'ok' && r[objAt] !== '' && Number.isFinite(v)
    if (!ok) return { config, ok, status }
    optimum = Math.min(optimum, v)
    const sd = stdAt >= 0 ? Number(r[stdAt]) : NaN
    const runs = runsAt >= 0 ? Number(r[runsAt]) : NaN
    const variance = Number.isFinite(sd) && runs > 0 ? (sd * sd) / runs : undefined
    return { config, ok, status, value: v, ...(variance !== undefined ? { variance } : {}) }
  })
  if (!Number.isFinite(optimum)) throw new KerneltuneError('INVALID_INPUT', `no row of the CSV has status ok and a numeric ${objective}; nothing to minimise`)
  return { params, objective, rows, optimum }
}

export interface TraceEntry {
  readonly evaluation: number
  /** null when the configuration failed. */
  readonly value: number | null
  /** Best value so far (null while every evaluation has failed). */
  readonly best: number | null
  readonly params: SearchConfig
}

export interface ReplayResult {
  readonly best: (SearchConfig & { value: number }) | null
  readonly trace: TraceEntry[]
}

export interface ReplayOptions extends Omit<CreateSearchOptions, 'space' | 'strategy' | 'budget'> {
  readonly strategy: StrategyName
  /** Evaluations (default 100; capped at the number of configurations). */
  readonly budget?: number
  /** Suggestions per ask (parallel workers); default 1. */
  readonly batch?: number
  /** Stop early once the best value is at or below this. */
  readonly target?: number
  readonly onProgress?: (done: number, total: number, best: number | null) => void
}

/** Runs a search with the table as the objective; failed rows are told as failures. */
export function replaySearch(table: ReplayTable, options: ReplayOptions): ReplayResult {
  const byKey = new Map(table.rows.map((r) => [JSON.stringify(table.params.map((p) => r.config[p.name])), r]))
  const total = Math.min(options.budget ?? 100, table.rows.length)
  const { budget: _b, batch: _q, onProgress: _p, target, ...rest } = options
  const search = createSearch({ ...rest, space: { params: table.params, validConfigs: table.rows.map((r) => r.config) }, budget: { evaluations: total } })
  const trace: TraceEntry[] = []
  let best: number | null = null
  let bestConfig: SearchConfig | null = null
  while (trace.length < total && !(target !== undefined && best !== null && best <= target)) {
    const configs = search.ask(options.batch ?? 1)
    if (configs.length === 0) break
    for (const config of configs) {
      const row = byKey.get(JSON.stringify(table.params.map((p) => config[p.name])))!
      if (row.ok) {
        search.tell({ config, value: row.value!, ...(row.variance !== undefined ? { variance: row.variance } : {}) })
        if (best === null || row.value! < best) (best = row.value!), (bestConfig = config)
      } else search.tell({ config, failed: true })
      trace.push({ evaluation: trace.length + 1, value: row.ok ? row.value! : null, best, params: config })
    }
    options.onProgress?.(trace.length, total, best)
  }
  return { best: bestConfig && best !== null ? { ...bestConfig, value: best } : null, trace }
}
