/**
 * `bench serve` and `bench capacity` as stored runs: what the store records and how the run is
 * judged is the tuner's (recordMeasuredRun); here is only what a command knows of its machine: the
 * model (from the GGUF, or what the server says), this machine's hardware, the engine that answered,
 * and which store.
 */
import { resolve } from 'node:path'
import { repetitionOf } from '@kerneltune/backends/node'
import type { Combo, HardwareSpec, ModelSpec } from '@kerneltune/core'
import { LLAMACPP_VERSION } from '@kerneltune/engines-llamacpp'
import type { LoadResult, Objectives } from '@kerneltune/serving'
import type { ServerInfo, ServerTarget } from '@kerneltune/serving/node'
import type { Store } from '@kerneltune/store'
import { recordMeasuredRun } from '@kerneltune/tuner'
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

/** Stores the measurement as a finished run (the tuner's recordMeasuredRun); returns its id, or why it was not stored. */
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
    const runId = await recordMeasuredRun(store, {
      command: o.command, model, hardware, ...engineOf(o.target, o.server),
      ...(o.target.kind === 'engine' ? { modelPath: o.target.model } : {}),
      ...(o.target.kind === 'endpoint' ? { endpoint: o.target.url } : {}),
      settings: o.settings, server: o.server, workload: o.workload, objectives: o.objectives, device: o.device, durationMs: o.durationMs,
      levels: o.levels.map((l) => ({ combo: l.combo, repetitions: l.loads.map(repetitionOf), served: l.loads.some((x) => x.metrics.requests.completed > 0) })),
      ...(o.extra ? { extra: o.extra } : {}),
    })
    return { runId }
  } finally {
    await store.close()
  }
}
