/**
 * `bench serve` and `bench capacity` as stored runs: what the store records and how the run is
 * judged is the tuner's (recordMeasuredRun); here is only what a bench knows of its machine: the
 * model (from the GGUF, or what the server says), this machine's hardware, the engine that
 * answered, and which store.
 */
import { resolve } from 'node:path'
import { repetitionOf } from '@kerneltune/backends/node'
import type { Combo, EnginePlugin, HardwareSpec, ModelSpec } from '@kerneltune/core'
import type { LoadResult, Objectives } from '@kerneltune/serving'
import type { ServerInfo, ServerTarget } from '@kerneltune/serving/node'
import { recordMeasuredRun } from '@kerneltune/tuner'
import { defaultDatabaseUrl, openStoreAt } from '../compose.node.ts'

/** One combination of the run: its load (and which measurement, for capacity) and the load runs measured at it. */
export interface BenchLevel {
  readonly combo: Combo
  readonly loads: readonly LoadResult[]
}

export interface BenchRun {
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** The store: a SQLite path or postgres:// URL; default the embedded one every command shares. */
  readonly db?: string | undefined
  readonly command: 'serve' | 'capacity'
  readonly target: ServerTarget
  readonly server: ServerInfo
  /** The engine whose version probe the server answered (see answeredBy); undefined: an OpenAI-compatible server of no known engine. */
  readonly answered?: EnginePlugin | undefined
  readonly device: string
  /** The engine settings the server was launched with (--combo). */
  readonly settings: Combo
  readonly levels: readonly BenchLevel[]
  readonly workload: { readonly promptTokens: number; readonly generatedTokens: number }
  readonly objectives?: Objectives | undefined
  readonly durationMs: number
  readonly extra?: Record<string, unknown>
}

/** Whether a running server answers `engine`'s version probe: then it is that engine, whatever the flags said. */
export async function answeredBy(baseUrl: string, engine: EnginePlugin): Promise<EnginePlugin | undefined> {
  const probe = engine.serving?.version
  if (!probe) return undefined
  try {
    const r = await fetch(`${baseUrl.replace(/\/$/, '')}${probe.path}`, { signal: AbortSignal.timeout(3000) })
    return r.ok && probe.read(await r.json())?.version ? engine : undefined
  } catch {
    return undefined // not JSON, or gone: not this engine's answer
  }
}

/**
 * The engine a run names. kerneltune launched the engine's server itself: that engine at the
 * release it translated for. A --endpoint or --launch server is whatever answered: the engine
 * whose version probe it answered (at the version it reported), else the only thing known of it,
 * that it speaks the OpenAI API.
 */
export function engineOf(o: Pick<BenchRun, 'target' | 'server' | 'answered'>): { engine: string; engineVersion: string } {
  if (o.target.kind === 'engine') return { engine: o.target.engine.name, engineVersion: o.target.version ?? o.target.engine.defaultVersion }
  return { engine: o.answered?.name ?? 'openai-compatible', engineVersion: o.server.version || 'unknown' }
}

/**
 * The model: read from the GGUF when there is one; else what the server says of it (/v1/models
 * with each model's parameter count in `meta.n_params`, as some servers give it). A run's model
 * needs its size, and a made-up one would be stored as if measured: without it the run is not
 * stored (the reason comes back instead).
 */
async function modelOf(o: BenchRun): Promise<ModelSpec | string> {
  const t = o.target
  const path = t.kind === 'engine' ? t.model : t.kind === 'template' ? t.model : undefined
  if (path) return (await (await import('@kerneltune/features/node')).fromGguf(resolve(o.cwd, path))).model
  const where = t.kind === 'endpoint' ? t.url : o.server.baseUrl
  try {
    const r = await fetch(`${o.server.baseUrl.replace(/\/$/, '')}/v1/models`, { signal: AbortSignal.timeout(3000) })
    const body = (await r.json()) as { data?: { id?: unknown; meta?: { n_params?: unknown } }[] }
    const m = body.data?.[0]
    const n = Number(m?.meta?.n_params)
    if (r.ok && Number.isFinite(n) && n > 0) {
      // Only what the server said: the schema's defaults (a quant) would be stored as if measured.
      return { name: typeof m?.id === 'string' && m.id ? m.id : `the model served at ${where}`, paramsB: n / 1e9 } as ModelSpec
    }
  } catch {
    // A server that is gone or answers otherwise says nothing of its model: not stored, below.
  }
  return `the server at ${where} does not say its model's size (/v1/models meta.n_params), and a run records it; pass --gguf FILE, or --no-store`
}

/** This machine's hardware (the one that ran the load; with --endpoint the server may be elsewhere, and the summary says so). */
async function hardwareOf(): Promise<HardwareSpec> {
  const { detectHardware, specFromDetected } = await import('@kerneltune/features/node')
  return specFromDetected(await detectHardware())
}

/** Stores the measurement as a finished run (the tuner's recordMeasuredRun); returns its id, or why it was not stored. */
export async function storeBenchRun(o: BenchRun): Promise<{ runId: string } | { notStored: string }> {
  const [model, hardware] = await Promise.all([modelOf(o), hardwareOf()])
  if (typeof model === 'string') return { notStored: model }
  const store = await openStoreAt(o.db ?? defaultDatabaseUrl(o.env))
  try {
    const runId = await recordMeasuredRun(store, {
      command: o.command, model, hardware, ...engineOf(o),
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
