/**
 * `bench serve` and `bench capacity` as stored runs (issue 25): what they measured goes to the
 * store (the embedded one, or --db) like a sweep's, so History lists it and `run show` judges it.
 * Each load level (bench serve) or measurement (bench capacity) is one combination of the run, its
 * load runs its repetitions in the server backend's shape (repetitionOf: the requests the tuner's
 * summary judges objectives by), and the run's options carry the --slo/--objective.
 *
 * The combinations are loads on one server configuration, not candidates against the defaults:
 * none is a baseline, so no gate compares them, and the objectives' decision says which level is
 * best and that nothing was compared with defaults.
 */
import { resolve } from 'node:path'
import { repetitionOf } from '@kerneltune/backends/node'
import type { Combo, HardwareSpec, ModelSpec } from '@kerneltune/core'
import { parseWith, WorkloadSchema } from '@kerneltune/core'
import { comboHash, createCatalog } from '@kerneltune/catalog'
import { LLAMACPP_VERSION } from '@kerneltune/engines-llamacpp'
import { objectivesRecord, type LoadResult, type Objectives } from '@kerneltune/serving'
import type { ServerInfo, ServerTarget } from '@kerneltune/serving/node'
import type { Store } from '@kerneltune/store'
import { comboMetrics, runOptions, runVerdict, summarizeRun } from '@kerneltune/tuner'
import type { Io } from '../../cli/command.ts'

export const NO_STORE_FLAG = { name: 'no-store', type: 'boolean', description: 'Do not store the measurement as a run (by default it is, in the embedded store or --db: kerneltune run show RUN_ID).' } as const
export const DB_FLAG = { name: 'db', type: 'string', description: 'Store the run in this database (SQLite path or postgres:// URL) instead of the embedded store.', valueName: 'URL' } as const

/** One combination of the run: its load (and which measurement, for capacity) and the load runs measured at it. */
export interface BenchLevel {
  readonly combo: Combo
  readonly loads: readonly LoadResult[]
}

export interface BenchRun {
  readonly io: Io
  readonly db?: string | undefined
  /** Which command measured: serve (levels) or capacity (the search's measurements). */
  readonly command: 'serve' | 'capacity'
  readonly target: ServerTarget
  readonly server: ServerInfo
  readonly device: string
  /** The llama.cpp settings the server was launched with (--combo). */
  readonly settings: Combo
  readonly levels: readonly BenchLevel[]
  readonly workload: { readonly promptTokens: number; readonly generatedTokens: number }
  readonly objectives?: Objectives | undefined
  readonly durationMs: number
  /** Added to the summary as is (bench capacity: its capacity). */
  readonly extra?: Record<string, unknown>
}

/**
 * The engine a run names. kerneltune launched llama-server itself: llamacpp at the release it
 * builds. A --endpoint or --launch server is whatever answered: llamacpp when its /props says
 * llama.cpp (at the version it reported), else the only thing known of it, that it speaks the
 * OpenAI API.
 */
export function engineOf(target: ServerTarget, server: ServerInfo): { engine: string; engineVersion: string } {
  if (target.kind === 'engine') return { engine: 'llamacpp', engineVersion: LLAMACPP_VERSION }
  return { engine: /^llama\.cpp\b/.test(server.version) ? 'llamacpp' : 'openai-compatible', engineVersion: server.version || 'unknown' }
}

/**
 * The model: read from the GGUF when there is one; else what the server says of it (llama-server's
 * /v1/models gives each model's parameter count in `meta.n_params`). A run's model needs its size,
 * and a made-up one would be stored as if measured: without it the run is not stored (the reason
 * comes back instead).
 */
async function modelOf(target: ServerTarget, io: Io, server: ServerInfo): Promise<ModelSpec | string> {
  const path = target.kind === 'engine' ? target.model : target.kind === 'template' ? target.model : undefined
  if (path) return (await (await import('@kerneltune/features/node')).fromGguf(resolve(io.cwd, path))).model
  const where = target.kind === 'endpoint' ? target.url : server.baseUrl
  try {
    const r = await fetch(`${server.baseUrl.replace(/\/$/, '')}/v1/models`, { signal: AbortSignal.timeout(3000) })
    const body = (await r.json()) as { data?: { id?: unknown; meta?: { n_params?: unknown } }[] }
    const m = body.data?.[0]
    const n = Number(m?.meta?.n_params)
    if (r.ok && Number.isFinite(n) && n > 0) return { name: typeof m?.id === 'string' && m.id ? m.id : `the model served at ${where}`, paramsB: n / 1e9 } as ModelSpec
  } catch {
    // A server that is gone or answers otherwise says nothing of its model: not stored, below.
  }
  return `the server at ${where} does not say its model's size (llama-server's /v1/models meta.n_params), and a run records it; pass --gguf FILE, or --no-store`
}

/** This machine's hardware (the one that ran the load; with --endpoint the server may be elsewhere, and the summary says so). */
async function hardwareOf(): Promise<HardwareSpec> {
  const { detectHardware, specFromDetected } = await import('@kerneltune/features/node')
  return specFromDetected(await detectHardware())
}

/** The decision under objectives, in words that do not compare levels with defaults none were measured against. */
function levelsDecision(winner: number | null, objective: string): string {
  return winner === null
    ? 'load levels of one server configuration (no defaults compared): no level meets the objectives'
    : `load levels of one server configuration (no defaults compared): #${winner} is the best level by ${objective} that meets the objectives`
}

/** Stores the measurement as a finished run; returns its id. */
export async function storeBenchRun(o: BenchRun): Promise<{ runId: string } | { notStored: string }> {
  const [model, hardware] = await Promise.all([modelOf(o.target, o.io, o.server), hardwareOf()])
  if (typeof model === 'string') {
    o.io.stderr(`bench ${o.command}: not stored as a run: ${model}\n`)
    return { notStored: model }
  }
  // The store sweep and run use: --db, else the embedded one every command shares.
  const { defaultDatabaseUrl, openStoreAt } = await import('@kerneltune/compose/node')
  const store: Store = await openStoreAt(o.db ?? defaultDatabaseUrl(o.io.env))
  try {
    const catalog = createCatalog()
    const first = o.levels[0]?.combo
    const run = await store.runs.create({
      tenant: 'default',
      mode: 'exhaustive',
      target: {
        model, hardware, ...engineOf(o.target, o.server),
        workload: parseWith(WorkloadSchema, { batch: Math.max(1, Number(first?.concurrency ?? 1)), promptTokens: o.workload.promptTokens, generatedTokens: o.workload.generatedTokens }, 'bench workload'),
        ...(o.target.kind === 'engine' ? { modelPath: o.target.model } : {}),
        options: {
          bench: { command: o.command, settings: o.settings, server: { argv: o.server.argv, version: o.server.version, baseUrl: o.server.baseUrl, launched: o.server.launched } },
          warmups: 0, metric: 'throughputTps', useCache: false,
          ...objectivesRecord(o.objectives),
        },
      },
      snapshot: { hash: catalog.hash, version: catalog.version, content: catalog.snapshot },
      // No baseline: no gate judges these combinations (summarizeRun gates only against one).
      qualityGate: 'manual',
      backend: 'server',
      repetitions: Math.max(...o.levels.map((l) => l.loads.length), 1),
      combos: o.levels.map((l) => ({ combo: l.combo, comboHash: comboHash(l.combo), isBaseline: false })),
    })
    await store.runs.setStatus(run.id, 'running')
    for (const [i, l] of o.levels.entries()) {
      const reps = l.loads.map(repetitionOf)
      const served = l.loads.some((x) => x.metrics.requests.completed > 0)
      await store.runs.recordCombo(run.id, i, { status: served ? 'measured' : 'failed', simulated: false, cached: false, repetitions: reps, metrics: served ? comboMetrics(reps) : null, comparison: null, error: served ? null : 'no request completed at this load' })
    }
    const stored = await store.runs.require(null, run.id)
    const combos = await store.runs.combos(run.id)
    const { summary } = summarizeRun(stored, combos, runOptions(stored), { devices: [o.device], durationMs: o.durationMs, stoppedEarly: [] })
    if (summary.objectives && !summary.objectives.note) {
      summary.objectives.decision = { ...summary.objectives.decision, reason: levelsDecision(summary.objectives.decision.winner, summary.objectives.objective), test: 'none: the levels are loads, not candidates against defaults' }
      // The one verdict, decided again from the decision as stored, so that the two say the same.
      summary.verdict = runVerdict(summary)
    }
    const note = `kerneltune bench ${o.command}: each combination is a ${o.command === 'capacity' ? 'measurement of the capacity search' : 'load level'} on one server configuration${Object.keys(o.settings).length ? ` (${JSON.stringify(o.settings)})` : ''}, not a setting; the winner is the best load, not a configuration to apply${o.target.kind === 'endpoint' ? `; the server at ${o.target.url} may run on other hardware than the one recorded (this machine's, which sent the load)` : ''}`
    const ok = combos.some((c) => c.status === 'measured')
    await store.runs.finish(run.id, ok ? 'succeeded' : 'failed', { ...summary, bench: { command: o.command, note }, ...o.extra }, new Map(), ok ? null : 'no request completed at any load')
    return { runId: run.id }
  } finally {
    await store.close()
  }
}
