/**
 * The serving capability: what a generic launcher needs to run an engine's translation as a live
 * OpenAI-compatible server and read it back. Optional on `EnginePlugin` (as vite's and unstorage's
 * plugins have optional hooks): an engine without it can translate but not be measured live.
 * Everything here is data or a pure function, so the contract stays runtime-neutral; finding and
 * spawning the binary is the launcher's job (`@kerneltune/serving/node`), which reads this.
 *
 * @example
 * ```ts
 * const serving: ServingCapability = {
 *   binary: { program: 'my-server', envVar: 'KERNELTUNE_MY_SERVER', installHint: 'pip install my-server==1.2' },
 *   readiness: { path: '/health' },
 *   version: { path: '/version', read: (body) => ({ version: (body as { version?: string }).version }) },
 *   metrics: { names: { promptTokens: 'my:prompt_tokens_total', generatedTokens: 'my:generation_tokens_total' }, lacks: { requestsRunning: 'not exported', requestsWaiting: 'not exported', kvCacheUsage: 'not exported' } },
 *   logs: { outOfMemory: [/out of memory/i] },
 *   evidence: ['readiness: my-server/server.py:120 at v1.2'],
 * }
 * ```
 */
import { KerneltuneError } from '../errors.ts'

/** The common counters every serving engine's Prometheus names are mapped to. */
export const SERVING_COUNTERS = ['promptTokens', 'generatedTokens', 'requestsRunning', 'requestsWaiting', 'kvCacheUsage'] as const
export type ServingCounter = (typeof SERVING_COUNTERS)[number]

/** What a log line of a server can mean beyond "no opinion". */
export const SERVING_LOG_CLASSES = ['out-of-memory', 'refused', 'crashed'] as const
export type ServingLogClass = (typeof SERVING_LOG_CLASSES)[number]

/** How to find the program: an environment variable naming it, else the engine's own lookup, else PATH. */
export interface ServingBinary {
  /** The program's name on PATH (and the translation's argv[0]): `llama-server`, `vllm`, `trtllm-serve`. */
  readonly program: string
  /** A variable that names the binary to use (tests and CI set it). */
  readonly envVar?: string
  /** Said when the binary is not found: how to install this release (`pip install vllm==0.11.0`). */
  readonly installHint: string
  /**
   * The engine's own lookup before PATH (a build cache), returning an executable path or
   * undefined. It may touch the file system, so engines set it from their Node entry point (the
   * runtime-neutral plugin leaves it out and the env variable and PATH still work).
   */
  locate?(env: Readonly<Record<string, string | undefined>>): string | undefined
}

/** What the launcher starts: the translation as a process. */
export interface ServingCommand {
  readonly argv: readonly string[]
  readonly env: Readonly<Record<string, string>>
  /** Relative file name → content, written to the server's private folder (`{dir}` in argv). */
  readonly files: Readonly<Record<string, string>>
}

/** When a launched server takes load. */
export interface ServingReadiness {
  /** The HTTP path polled until it answers `status` (default 200). */
  readonly path: string
  readonly status?: number
  /** The server's own output line saying its model is loaded, when it prints one (a launch phase). */
  readonly modelLoadedLine?: RegExp
}

/** What a server says about itself. */
export interface ServingIdentity {
  readonly version?: string
  readonly modelAlias?: string
  /** Requests it serves at once, where it says (parallel slots, max batch). */
  readonly slots?: number
}

/** How to ask a running server for its version. */
export interface ServingVersionProbe {
  /** GET path answering JSON. */
  readonly path: string
  /** Reads the JSON body; undefined when it is not this engine's answer. */
  read(body: unknown): ServingIdentity | undefined
}

/** The engine's Prometheus names for the common counters. */
export interface ServingMetricNames {
  /** Default /metrics. */
  readonly path?: string
  /** Counter → the engine's metric name (counters: totals; gauges: current values). */
  readonly names: Readonly<Partial<Record<ServingCounter, string>>>
  /** Counter → why this engine has no metric for it. Every common counter is in `names` or here. */
  readonly lacks?: Readonly<Partial<Record<ServingCounter, string>>>
  /** Prompt tokens served from a prefix cache, where exported. */
  readonly cachedPromptTokens?: string
  /** The server's own throughput gauges (tokens/s), where exported. */
  readonly promptTokensPerSecond?: string
  readonly generatedTokensPerSecond?: string
  /** Arguments a launch for measurement adds so that the metrics exist (llama.cpp's server needs a switch). */
  readonly enableArgs?: readonly string[]
}

/** Output lines that mean a server refused its settings, crashed or ran out of memory. */
export interface ServingLogPatterns {
  readonly outOfMemory?: readonly RegExp[]
  readonly refused?: readonly RegExp[]
  readonly crashed?: readonly RegExp[]
  /** Rewrites a line before it is stored in an error (drops bytes of a user's file, say). */
  readonly redact?: (line: string) => string
}

export interface ServingCapability {
  readonly binary: ServingBinary
  /**
   * The process for a translation (an engine Translation: its argv, env and files) and a found
   * binary. Default (`servingCommand`): the translation's argv with argv[0] replaced by the binary
   * and the metrics' enableArgs appended.
   */
  command?(translation: ServingCommand, binary: string): ServingCommand
  /**
   * Translation options the launcher passes so the server listens where it says: `{port}` and
   * `{host}` are replaced by the launcher (default `{ host: '127.0.0.1', port: '{port}' }`).
   */
  readonly listenOptions?: Readonly<Record<string, unknown>>
  /**
   * Arguments appended after the translation when its translator writes no listen address
   * (`['--host', '{host}', '--port', '{port}']`); the launcher fills the placeholders.
   */
  readonly listenArgs?: readonly string[]
  /**
   * Arguments that skip the engine's own warm-up at load, for a launcher that warms each server
   * with a wave of its measured load right after it is up (a warm-up twice costs a launch's time
   * on a loaded CPU). Absent: the engine warms itself as it does by default.
   */
  readonly skipWarmupArgs?: readonly string[]
  readonly readiness: ServingReadiness
  readonly version: ServingVersionProbe
  readonly metrics: ServingMetricNames
  readonly logs: ServingLogPatterns
  /**
   * Where each fact above was read, one line each: `readiness: <repo>/<file>:<line> at <tag>`.
   * The conformance suite requires one for readiness, version and metrics.
   */
  readonly evidence: readonly string[]
}

/** The default command: the binary in place of argv[0], the listen arguments and the metrics switch appended. */
export function servingCommand(serving: ServingCapability, translation: ServingCommand, binary: string): ServingCommand {
  if (serving.command) return serving.command(translation, binary)
  const extra = [...(serving.listenArgs ?? []), ...(serving.metrics.enableArgs ?? [])]
  return { argv: [binary, ...translation.argv.slice(1), ...extra], env: { ...translation.env }, files: { ...translation.files } }
}

/** The class of the first output line that matches one (out of memory before refused before crashed). */
export function classifyServerLog(serving: ServingCapability, lines: readonly string[]): { readonly class: ServingLogClass; readonly line: string } | undefined {
  const order: readonly [ServingLogClass, readonly RegExp[] | undefined][] = [['out-of-memory', serving.logs.outOfMemory], ['refused', serving.logs.refused], ['crashed', serving.logs.crashed]]
  for (const [cls, patterns] of order) {
    for (const line of lines) if (patterns?.some((p) => p.test(line))) return { class: cls, line }
  }
  return undefined
}

/** The engine's serving capability, or UNSUPPORTED saying that it has none. */
export function requireServing(engine: { readonly name: string; readonly displayName?: string; readonly serving?: ServingCapability }): ServingCapability {
  if (engine.serving) return engine.serving
  throw new KerneltuneError('UNSUPPORTED', `engine ${engine.name} has no serving capability: it translates settings but kerneltune cannot launch it as a server; use an engine that declares \`serving\` (see docs/writing-an-engine-plugin.md)`, { plugin: engine.name })
}
