/**
 * The `server` backend of runs and tune sessions: each combination is launched as the run's
 * engine's own server (the engine's serving capability says the program, readiness, version probe
 * and metric names) with the run's model file, and measured under OpenAI-compatible streaming load
 * shaped by the run's workload (prompt and generated tokens; batch = concurrent requests). One
 * registered plugin serves every engine that declares `serving`: a request's `engine` picks it. A
 * model-file backend: one registered plugin, a concrete backend per model path. The binary is
 * looked up when a run first needs it, so registering the backend where no engine is installed
 * costs nothing, and a run on an engine that is not installed fails with ENGINE_NOT_INSTALLED and
 * the engine's install hint. A run that stored serving settings (options.serving: a sweep's
 * request count, servers kept across rounds, pre-launch) gets a backend of its own made with them
 * (forModel(path, run options)), which its executor closes when the run ends.
 */
import { KerneltuneError, modelFileBackend, requireServing, type EngineLookup, type EnginePlugin, type MeasurementBackend, type MeasurementRequest, type ModelFileBackend } from '@kerneltune/core'
import { findServerBinary, requireServerBinary } from '@kerneltune/serving/node'
import { serverBackend, type ServerBackend } from './server-backend.node.ts'
import { storedServingSettings, type ServingRunSettings } from './server-run-settings.node.ts'

export const SERVER_RUN_BACKEND = 'server'

export interface ServerRunBackendOptions {
  /** Where the engines come from (the registry the backend joins); looked up per measurement. */
  readonly engines: EngineLookup
  /** The engine of a request that names none. */
  readonly defaultEngine?: string
  /** Engine name → server binary, instead of the capability's lookup (tests give a wrapper). */
  readonly binaries?: Readonly<Record<string, string>>
  /** Measured requests per repetition at least. Default 8. */
  readonly requests?: number
  /** The environment binaries are looked up in (their variables, PATH). Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>
}

function engineOf(o: ServerRunBackendOptions, request: Pick<MeasurementRequest, 'engine'>): EnginePlugin {
  const name = request.engine ?? o.defaultEngine
  const servable = o.engines.list('engine').filter((e) => e.serving)
  if (name === undefined) throw new KerneltuneError('INVALID_INPUT', `the server backend launches the run's engine, and the request names none; engines it can launch: ${servable.map((e) => e.name).join(', ') || '(none registered)'}`)
  const engine = o.engines.list('engine').find((e) => e.name === name)
  if (!engine) throw new KerneltuneError('PLUGIN_NOT_FOUND', `no engine named ${name}; engines the server backend can launch: ${servable.map((e) => e.name).join(', ') || '(none registered)'}`)
  requireServing(engine)
  return engine
}

/** The backend of one model file with a run's serving settings: one generic server backend per engine the requests name. */
function engineServers(options: ServerRunBackendOptions, modelPath: string, settings: ServingRunSettings): MeasurementBackend {
  // One generic server backend per engine: its servers, pool and binary are the engine's.
  const inner = new Map<string, ServerBackend>()
  const get = (request: Pick<MeasurementRequest, 'engine'>) => {
    const engine = engineOf(options, request)
    let b = inner.get(engine.name)
    if (!b) {
      const binary = options.binaries?.[engine.name] ?? requireServerBinary(engine.name, engine.serving!, options.env).path
      const skip = settings.skipEngineWarmup ? engine.serving!.skipWarmupArgs ?? [] : []
      b = serverBackend({
        name: SERVER_RUN_BACKEND,
        target: { kind: 'engine', engine, binary, model: modelPath, ...(skip.length ? { extraArgs: [...skip] } : {}) },
        load: { workload: { kind: 'synthetic', promptTokens: 64, outputTokens: 32 }, requests: settings.requests ?? options.requests ?? 8 },
        // A stored request count is the run's, exactly: not raised to 4 per concurrent stream.
        ...(settings.requests === undefined ? {} : { requestsPerStream: 0 }),
        ...(settings.keepServers === undefined ? {} : { keepServers: { max: settings.keepServers, ...(settings.parallelLaunches === undefined ? {} : { parallelLaunches: settings.parallelLaunches }) } }),
        ...(settings.serialWarmups ? { serialWarmups: true } : {}),
      })
      inner.set(engine.name, b)
    }
    return b
  }
  const kept = settings.keepServers !== undefined
  return {
    name: SERVER_RUN_BACKEND,
    kind: 'measurement-backend',
    apiVersion: 1,
    simulated: false,
    available: () => {
      const name = options.defaultEngine
      if (name === undefined) return { ok: true }
      try {
        const engine = engineOf(options, { engine: name })
        return options.binaries?.[name] ?? findServerBinary(name, engine.serving!, options.env) ? { ok: true } : { ok: false, reason: `${name} is not installed: ${engine.serving!.binary.installHint}` }
      } catch (e) {
        return { ok: false, reason: e instanceof Error ? e.message : String(e) }
      }
    },
    measure: async (request) => get(request).measure(request),
    // Kept servers can be launched before the first round; a server per measurement has nothing to launch ahead.
    ...(kept ? { prepare: async (requests: readonly MeasurementRequest[]) => (requests.length ? (await get(requests[0]!).prepare?.(requests)) ?? [] : []) } : {}),
    close: async () => {
      for (const b of inner.values()) await b.close()
    },
  }
}

export function serverRunBackend(options: ServerRunBackendOptions): ModelFileBackend {
  return modelFileBackend({
    name: SERVER_RUN_BACKEND,
    description: "the run's engine launched as its own OpenAI-compatible server per combination (any engine with a serving capability) with the run's model file (modelPath), measured under concurrent streaming load: output tokens/s, TTFT, TPOT, latency",
    simulated: false,
    fileKind: 'a model file the engine serves',
    create: (modelPath) => engineServers(options, modelPath, {}),
    forRun: (modelPath, run) => engineServers(options, modelPath, storedServingSettings(run.options)),
  })
}
