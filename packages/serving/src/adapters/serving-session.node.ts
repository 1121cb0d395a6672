/**
 * One measured server: get a server (launch an engine's translated command line, launch a command
 * template, or use a running endpoint), read its version, put load on it at one or more levels,
 * read its own metrics before and after, cross-check, and stop it. Used by the `bench serve`
 * command and, per combination, by the server measurement backend.
 */
import { execFileSync } from 'node:child_process'
import { cpus } from 'node:os'
import { classifyServerLog, KerneltuneError, isKerneltuneError, requireServing, servingCommand, type Combo, type EnginePlugin, type ServingCapability } from '@kerneltune/core'
import { crossCheck, type CrossCheck } from '../cross-check.ts'
import { runLoad, type LoadOptions, type LoadResult } from '../load-generator.ts'
import { parsePrometheus, type PrometheusMetrics } from '../prometheus.ts'
import { errorLines, launchServer, type LaunchedServer, type LaunchPhases, type LaunchSpec } from './launcher.node.ts'
import { requireServerBinary } from './server-binary.node.ts'

/** How the server under test comes to exist. */
export type ServerTarget =
  /**
   * Translate each combination with `engine` and launch it as its serving capability says (the
   * program, readiness, version probe, metrics). `binary` overrides the capability's lookup;
   * `extraArgs` are added after the command.
   */
  | { readonly kind: 'engine'; readonly engine: EnginePlugin; readonly binary?: string; readonly model: string; readonly extraArgs?: readonly string[]; readonly version?: string }
  /** A shell command with a `{port}` placeholder, and optionally `{args}` for the translated flags. */
  | { readonly kind: 'template'; readonly command: string; readonly engine?: EnginePlugin; readonly model?: string }
  /** A server that is already running; it cannot be reconfigured, so only the empty combination is measurable. `serving`: its engine's, for the version probe and metric names. */
  | { readonly kind: 'endpoint'; readonly url: string; readonly serving?: ServingCapability }

export type LoadLevel = Pick<LoadOptions, 'concurrency' | 'rate'>

export interface SessionOptions {
  readonly target: ServerTarget
  readonly combo?: Combo
  /** The load of every level, without baseUrl, concurrency and rate. */
  readonly load: Omit<LoadOptions, 'baseUrl' | 'concurrency' | 'rate' | 'onRequestDone'>
  /** One load per level, on the same server, in order. Default one closed-loop level of concurrency 1. */
  readonly levels?: readonly LoadLevel[]
  /** Load runs per level (repetitions). Default 1. */
  readonly runs?: number
  /** Warm-up requests in flight at once (runLoad's warmupConcurrency). Default 1. */
  readonly warmupConcurrency?: number
  readonly readyTimeoutMs?: number
  readonly device?: string
  readonly signal?: AbortSignal
  readonly onProgress?: (message: string) => void
}

export interface ServerInfo {
  readonly argv: readonly string[]
  readonly pid?: number
  readonly baseUrl: string
  /** From the server (its engine's version probe), else the translation's version. */
  readonly version: string
  readonly launched: boolean
  readonly modelAlias?: string
  /** The requests the server serves at once as it reported them (its version probe); absent when it does not say. */
  readonly slots?: number
}

export interface LevelResult extends LoadResult {
  readonly run: number
  readonly crossCheck: CrossCheck
}

export interface SessionResult {
  readonly server: ServerInfo
  readonly device: string
  readonly levels: readonly LevelResult[]
  readonly notes: readonly string[]
  /** The phases of the server this session launched (absent when it used one already running). */
  readonly launch?: LaunchPhases
  /** Why it was launched (a pool's reason; absent: a server per session). */
  readonly launchReason?: string
}

/** What this machine's CPU is, in words: the model and its logical cores. */
export function cpuDevice(): string {
  const c = cpus()
  return `CPU: ${c[0]?.model.trim() ?? 'unknown'} (${c.length} logical cores)`
}

/**
 * The device in words from `nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader`
 * (undefined or empty: no NVIDIA GPU answered): the GPUs first, the host CPU after them. The H100
 * run's bench-serve.json named only the host CPU although the server ran every layer on the GPU
 * (issue 34).
 */
export function deviceFromNvidiaSmi(csv: string | undefined, cpu: string): string {
  const gpus = (csv ?? '').split('\n').map((l) => l.split(',').map((x) => x.trim())).filter((p) => p[0])
  if (!gpus.length) return cpu
  const one = (p: string[]) => `${p[0]}${p[1] ? ` (driver ${p[1]}${p[2] ? `, ${p[2]}` : ''})` : ''}`
  return `GPU: ${gpus.map(one).join(', ')}; host ${cpu}`
}

let machine: string | undefined
/** This machine's device: its NVIDIA GPUs where nvidia-smi answers, and the CPU (asked once per process). */
export function machineDevice(): string {
  if (machine !== undefined) return machine
  let csv: string | undefined
  try {
    csv = execFileSync('nvidia-smi', ['--query-gpu=name,driver_version,memory.total', '--format=csv,noheader'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] })
  } catch {
    csv = undefined // no nvidia-smi, or no GPU answered
  }
  machine = deviceFromNvidiaSmi(csv, cpuDevice())
  return machine
}

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`)

async function translateArgs(engine: EnginePlugin, combo: Combo, model: string | undefined, version?: string) {
  const t = await engine.translate(combo, { ...(model ? { model } : {}), ...(version ? { version } : {}), options: engine.serving?.listenOptions ?? { host: '127.0.0.1', port: '{port}' } })
  if (!t.ok) throw new KerneltuneError('UNSUPPORTED_COMBINATION', `${engine.name} refuses ${t.dimension}=${t.value}: ${t.reason}`, { details: t })
  return t
}

async function fetchText(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) })
    return res.ok ? await res.text() : undefined
  } catch {
    return undefined
  }
}

async function readMetrics(baseUrl: string, path = '/metrics'): Promise<PrometheusMetrics | undefined> {
  const text = await fetchText(`${baseUrl}${path}`)
  if (text === undefined) return undefined
  try {
    return parsePrometheus(text)
  } catch {
    return undefined
  }
}

/** The model's vocabulary size where the server says it (/v1/models data[0].meta.n_vocab, which some servers add). */
async function readVocab(baseUrl: string): Promise<number | undefined> {
  const text = await fetchText(`${baseUrl}/v1/models`)
  try {
    const n = text ? (JSON.parse(text) as { data?: { meta?: { n_vocab?: number } }[] }).data?.[0]?.meta?.n_vocab : undefined
    return typeof n === 'number' && n > 1 ? n : undefined
  } catch {
    return undefined
  }
}

/**
 * The server's version, model alias and slots from its engine's version probe, else the first
 * model's owner in /v1/models (the OpenAI field every compatible server fills somehow).
 */
async function readVersion(baseUrl: string, serving: ServingCapability | undefined): Promise<{ version?: string; alias?: string; slots?: number }> {
  const probe = serving?.version
  const text = probe ? await fetchText(`${baseUrl}${probe.path}`) : undefined
  if (probe && text) {
    try {
      const id = probe.read(JSON.parse(text))
      if (id?.version) return { version: id.version, ...(id.modelAlias ? { alias: id.modelAlias } : {}), ...(id.slots === undefined ? {} : { slots: id.slots }) }
    } catch {
      // Not JSON: not this engine's answer.
    }
  }
  const models = await fetchText(`${baseUrl}/v1/models`)
  try {
    const m = models ? (JSON.parse(models) as { data?: { id?: string; owned_by?: string }[] }) : undefined
    if (m?.data?.[0]?.owned_by) return { version: m.data[0].owned_by, ...(m.data[0].id ? { alias: m.data[0].id } : {}) }
  } catch {
    // No model list either.
  }
  return {}
}

/** A server ready for load: launched here (and stopped by stop()) or one that was already running. */
export interface OpenServer {
  readonly server: ServerInfo
  /** Its engine's serving capability, where known: metric names and log classes. */
  readonly serving?: ServingCapability
  readonly launched?: LaunchedServer
  /** The model's vocabulary where the server says it (synthetic token ids must exist in it). */
  readonly vocab?: number
  readonly notes: readonly string[]
  /** False once a launched server has exited; a running endpoint is taken to be alive. */
  alive(): boolean
  stop(): Promise<void>
}

export interface OpenOptions {
  readonly target: ServerTarget
  readonly combo?: Combo
  readonly readyTimeoutMs?: number
  readonly onProgress?: (message: string) => void
}

/** What the launcher reads from an engine's serving capability. */
function launchOptionsOf(serving: ServingCapability | undefined): Partial<LaunchSpec> {
  if (!serving) return {}
  const r = serving.readiness
  return {
    healthPath: r.path,
    ...(r.status === undefined ? {} : { readyStatus: r.status }),
    ...(r.modelLoadedLine ? { modelLoadedLine: r.modelLoadedLine } : {}),
    ...(serving.logs.redact ? { redactLine: serving.logs.redact } : {}),
    classify: (lines) => classifyServerLog(serving, lines),
  }
}

/** Gets the server of a target for one combination: translate and launch it, or check that a running endpoint can stand for it. */
export async function openServer(o: OpenOptions): Promise<OpenServer> {
  const combo = o.combo ?? {}
  const notes: string[] = []
  let launched: LaunchedServer | undefined
  let baseUrl: string
  let argv: readonly string[]
  let translatedVersion: string | undefined
  const t = o.target
  const serving = t.kind === 'endpoint' ? t.serving : t.kind === 'engine' ? requireServing(t.engine) : t.engine?.serving
  if (t.kind === 'endpoint') {
    if (Object.keys(combo).length > 0) {
      throw new KerneltuneError('UNSUPPORTED_COMBINATION', `the server at ${t.url} is already running and cannot be reconfigured to ${JSON.stringify(combo)}; measure it as it is, or let kerneltune launch it (--launch 'CMD {port}' or a GGUF)`)
    }
    baseUrl = t.url.replace(/\/$/, '')
    argv = []
    notes.push(`measured the running server at ${baseUrl}; its settings are whatever it was started with`)
  } else {
    let spec: { argv: string[]; env: Record<string, string>; files: Record<string, string>; shell: boolean }
    if (t.kind === 'engine') {
      const tr = await translateArgs(t.engine, combo, t.model, t.version)
      translatedVersion = `${t.engine.name} ${tr.version}`
      const cmd = servingCommand(serving!, tr, t.binary ?? requireServerBinary(t.engine.name, serving!).path)
      spec = { argv: [...cmd.argv, ...(t.extraArgs ?? [])], env: { ...cmd.env }, files: { ...cmd.files }, shell: false }
    } else {
      if (!t.command.includes('{port}')) throw new KerneltuneError('INVALID_INPUT', `the launch command needs a {port} placeholder for the port kerneltune picks, e.g. 'my-server --model m --port {port}'; got: ${t.command}`)
      let args = ''
      const env: Record<string, string> = {}
      let files: Record<string, string> = {}
      if (t.command.includes('{args}') && t.engine) {
        const tr = await translateArgs(t.engine, combo, t.model)
        // The template places the port (and, without a model here, the model) itself.
        const own = new Set(['--port', '--host', ...(t.model ? [] : ['-m', '--model'])])
        args = tr.argv.slice(1).filter((a, i, all) => !own.has(a) && !own.has(all[i - 1]!)).map(quote).join(' ')
        Object.assign(env, tr.env)
        files = { ...tr.files }
        translatedVersion = `${t.engine.name} ${tr.version}`
      } else if (Object.keys(combo).length > 0) {
        throw new KerneltuneError('UNSUPPORTED_COMBINATION', `the launch command has no {args} placeholder, so the combination ${JSON.stringify(combo)} cannot be applied; add {args} where the engine's flags go`)
      }
      spec = { argv: [t.command.replaceAll('{args}', args)], env, files, shell: true }
    }
    o.onProgress?.('starting the server')
    launched = await launchServer({ ...spec, ...launchOptionsOf(serving), readyTimeoutMs: o.readyTimeoutMs ?? 120_000 })
    baseUrl = launched.baseUrl
    argv = launched.argv
  }
  let exited = false
  void launched?.exited.then(() => (exited = true))
  try {
    const v = await readVersion(baseUrl, serving)
    if (!v.version) notes.push(`the server did not report a version (${serving ? `nothing at ${serving.version.path}, ` : ''}no /v1/models owned_by)`)
    const vocab = await readVocab(baseUrl)
    const server: ServerInfo = {
      argv,
      ...(launched ? { pid: launched.pid } : {}),
      baseUrl,
      version: v.version ?? translatedVersion ?? 'unknown',
      launched: launched !== undefined,
      ...(v.alias ? { modelAlias: v.alias } : {}),
      ...(v.slots === undefined ? {} : { slots: v.slots }),
    }
    return {
      server,
      ...(serving ? { serving } : {}),
      ...(launched ? { launched } : {}),
      ...(vocab === undefined ? {} : { vocab }),
      notes,
      alive: () => !exited,
      stop: async () => void (await launched?.stop()),
    }
  } catch (e) {
    await launched?.stop()
    throw e
  }
}

export interface LoadServerOptions {
  readonly load: SessionOptions['load']
  readonly levels?: readonly LoadLevel[]
  readonly runs?: number
  /**
   * Loads this server has already had. Each load's prompts come from a fresh seed, counted from
   * here: the same prompts again would hit the server's prompt cache. Default 0.
   */
  readonly loadsBefore?: number
  /** Warm-up requests in flight at once (runLoad's warmupConcurrency). Default 1. */
  readonly warmupConcurrency?: number
  readonly signal?: AbortSignal
  readonly onProgress?: (message: string) => void
}

/** The seed of a server's next load: the same prompts again would hit a server's prompt cache. */
const loadSeed = (load: SessionOptions['load'], loadsBefore: number) => (load.seed ?? 1) + 7919 * loadsBefore

/** Synthetic token ids must exist in the model's vocabulary: a small model may have only a few hundred. */
function fitVocab(s: OpenServer, load: SessionOptions['load']): SessionOptions['load'] {
  if (load.workload.kind === 'synthetic' && load.workload.tokenIdRange === undefined && s.vocab !== undefined && s.vocab < 1000) {
    return { ...load, workload: { ...load.workload, tokenIdRange: [Math.min(10, s.vocab - 1), s.vocab] } }
  }
  return load
}

/**
 * Warms an open server up without measuring: `requests` requests of the load, `level` in flight
 * (the measurement's shape, so a GPU server also meets the batch sizes it will decode), recorded
 * as the launch's warm-up phase. A sweep that pre-launches its servers warms them here, before
 * its first round, so that no visit of any round pays a warm-up.
 */
export async function warmServer(s: OpenServer, o: { readonly load: SessionOptions['load']; readonly level: LoadLevel; readonly requests: number; readonly loadsBefore?: number; readonly signal?: AbortSignal }): Promise<void> {
  if (o.requests < 1) return
  const load = fitVocab(s, o.load)
  const started = performance.now()
  await runLoad({ ...load, ...o.level, requests: o.requests, warmups: 0, seed: loadSeed(load, o.loadsBefore ?? 0), baseUrl: s.server.baseUrl, ...(o.signal ? { signal: o.signal } : {}) })
  s.launched?.markWarmup(started, performance.now(), o.requests)
}

/** Puts the load on an open server, every level `runs` times, and cross-checks each run against the server's own counters. */
export async function loadServer(s: OpenServer, o: LoadServerOptions): Promise<LevelResult[]> {
  const baseUrl = s.server.baseUrl
  try {
    const load = fitVocab(s, o.load)
    const levels: LevelResult[] = []
    const runs = Math.max(1, o.runs ?? 1)
    for (const level of o.levels ?? [{ concurrency: 1 }]) {
      for (let run = 0; run < runs; run++) {
        if (o.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the measurement was cancelled')
        let before: PrometheusMetrics | undefined
        o.onProgress?.(`load ${level.rate === undefined ? `concurrency ${level.concurrency ?? 1}` : `rate ${level.rate}/s`}, run ${run + 1}/${runs}`)
        // Counters are read after the warm-ups, so the server's totals cover the measured requests only.
        const warmups = levels.length > 0 ? 0 : (load.warmups ?? 1)
        const warmStart = performance.now()
        const afterWarmup = async () => {
          if (warmups > 0) s.launched?.markWarmup(warmStart, performance.now(), warmups)
          before = s.serving ? await readMetrics(baseUrl, s.serving.metrics.path) : undefined
        }
        const seed = loadSeed(load, (o.loadsBefore ?? 0) + levels.length)
        const r = await runLoad({ ...load, ...level, seed, baseUrl, afterWarmup, warmups, ...(o.warmupConcurrency === undefined ? {} : { warmupConcurrency: o.warmupConcurrency }), ...(o.signal ? { signal: o.signal } : {}) })
        const after = s.serving ? await readMetrics(baseUrl, s.serving.metrics.path) : undefined
        levels.push({ ...r, run, crossCheck: crossCheck(r.records, before, after, s.serving?.metrics) })
      }
    }
    return levels
  } catch (e) {
    // A server that dies under load is a failed combination: say so with its own error lines.
    const launched = s.launched
    if (launched && !(isKerneltuneError(e) && e.code === 'CANCELLED')) {
      const output = launched.output()
      const lines = errorLines(output, 8, s.serving?.logs.redact)
      const cls = s.serving ? classifyServerLog(s.serving, output) : undefined
      throw new KerneltuneError('MEASUREMENT_FAILED', `${e instanceof Error ? e.message : String(e)}; ${cls ? `the server's output says ${cls.class}; ` : ''}server output: ${lines.join(' | ') || 'none'}`, { cause: e, details: { argv: launched.argv, errorLines: lines, ...(cls ? { logClass: cls.class } : {}) } })
    }
    throw e
  }
}

/** Open, load, stop: one server for one combination. */
export async function runServingSession(o: SessionOptions): Promise<SessionResult> {
  const s = await openServer(o)
  try {
    const levels = await loadServer(s, o)
    const launch = s.launched?.phases()
    return { server: s.server, device: o.device ?? machineDevice(), levels, notes: [...s.notes], ...(launch ? { launch } : {}) }
  } finally {
    await s.stop()
  }
}
