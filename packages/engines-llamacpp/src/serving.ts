/**
 * llama-server as a live server (the serving capability of the engine contract): readiness, the
 * version probe, its Prometheus names and the output lines that mean it refused its settings, ran
 * out of memory or crashed. Read from the llama.cpp source node-llama-cpp 3.22.1 bundles
 * (ggml-org/llama.cpp tag v0.5.0, commit de3ff81; facts.ts says where it is).
 */
import type { ServingCapability, ServingIdentity } from '@kerneltune/core'
import { LLAMACPP_VERSION } from './facts.ts'

/** The variable CI and tests set to the llama-server to use. */
export const LLAMA_SERVER_ENV = 'KERNELTUNE_LLAMA_SERVER'
export const BUILD_HINT = 'build it with `bash tooling/scripts/build-llama-server.sh` (about 17 CPU-minutes; it prints the path), or set KERNELTUNE_LLAMA_SERVER to an existing llama-server'

/** llama-server's Prometheus names (`--metrics`), prefixed `llamacpp:` (server-task.cpp:1596-1598). */
export const LLAMA_SERVER_METRICS = {
  promptTokensTotal: 'llamacpp:prompt_tokens_total',
  promptTokensCachedTotal: 'llamacpp:prompt_tokens_cached_total',
  outputTokensTotal: 'llamacpp:tokens_predicted_total',
  promptTokensPerSecond: 'llamacpp:prompt_tokens_seconds',
  outputTokensPerSecond: 'llamacpp:predicted_tokens_seconds',
  requestsProcessing: 'llamacpp:requests_processing',
  requestsDeferred: 'llamacpp:requests_deferred',
} as const

/**
 * llama-server's line once its model is loaded: `SRV_INF("%s", "model loaded\n")`, printed as
 * `srv  llama_server: model loaded` (tools/server/server.cpp:485), right after it marks itself
 * ready (`ctx_http.is_ready.store(true)`, server.cpp:483: /health answers 200 from then on, 503
 * "Loading model" before). Older servers print `main: model loaded`; both end the same way.
 */
export const MODEL_LOADED_LINE = /:\s*model loaded\s*$/

/** /props: `build_info` (server-context.cpp:4633) and `total_slots` (server-context.cpp:4614). */
function readProps(body: unknown): ServingIdentity | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const p = body as { build_info?: unknown; model_alias?: unknown; total_slots?: unknown }
  if (typeof p.build_info !== 'string' || p.build_info === '') return undefined
  return {
    version: `llama.cpp ${p.build_info}`,
    ...(typeof p.model_alias === 'string' && p.model_alias ? { modelAlias: p.model_alias } : {}),
    // With no -np it picks 4 slots itself, so a run records what it chose rather than infers it.
    ...(typeof p.total_slots === 'number' ? { slots: p.total_slots } : {}),
  }
}

/**
 * llama.cpp prints the first four bytes of a file that is not a GGUF (ggml/src/gguf.cpp,
 * gguf_init_from_reader: "invalid magic characters: 'root', expected 'GGUF'"); these lines end up
 * in stored run errors, so the bytes are dropped (issue 23 item 15).
 */
const redact = (line: string) => line.replace(/invalid magic characters: '[^\n]{0,4}'/, 'invalid magic characters')

export interface LlamacppServingOptions {
  /** The engine's own binary lookup (the build cache), from `@kerneltune/engines-llamacpp/node`. */
  readonly locate?: (env: Readonly<Record<string, string | undefined>>) => string | undefined
}

export function llamacppServing(options: LlamacppServingOptions = {}): ServingCapability {
  return {
    binary: { program: 'llama-server', envVar: LLAMA_SERVER_ENV, installHint: BUILD_HINT, ...(options.locate ? { locate: options.locate } : {}) },
    readiness: { path: '/health', modelLoadedLine: MODEL_LOADED_LINE },
    // llama-server warms itself with an empty decode run at load unless told not to (common/common.cpp
    // 1511-1546, --no-warmup in common/arg.cpp 1963-1969); on a loaded 2-core CPU it took 1.2-1.5 s of a 2 s launch (issue 35).
    skipWarmupArgs: ['--no-warmup'],
    version: { path: '/props', read: readProps },
    metrics: {
      names: {
        promptTokens: LLAMA_SERVER_METRICS.promptTokensTotal,
        generatedTokens: LLAMA_SERVER_METRICS.outputTokensTotal,
        requestsRunning: LLAMA_SERVER_METRICS.requestsProcessing,
        requestsWaiting: LLAMA_SERVER_METRICS.requestsDeferred,
      },
      lacks: { kvCacheUsage: `llama.cpp ${LLAMACPP_VERSION} exports no KV-cache usage metric (server-task.cpp:1522-1590 lists its counters and gauges)` },
      cachedPromptTokens: LLAMA_SERVER_METRICS.promptTokensCachedTotal,
      // Averaged over the server's lifetime (server-task.cpp:1567-1575).
      promptTokensPerSecond: LLAMA_SERVER_METRICS.promptTokensPerSecond,
      generatedTokensPerSecond: LLAMA_SERVER_METRICS.outputTokensPerSecond,
      // /metrics is off unless asked for (common/arg.cpp `--metrics`).
      enableArgs: ['--metrics'],
    },
    logs: {
      outOfMemory: [/cudaMalloc failed|failed to allocate (buffer|graph)|out of memory/i],
      refused: [/error: invalid argument|error while handling argument|exiting due to model loading error|failed to create context/i],
      crashed: [/GGML_ASSERT\(.*\) failed|GGML_ABORT|fatal error|terminate called|Segmentation fault|core dumped/i],
      redact,
    },
    evidence: [
      `readiness: ggml-org/llama.cpp tools/server/server.cpp:251 (GET /health) and :483-485 (is_ready, "model loaded") at ${LLAMACPP_VERSION} (de3ff81)`,
      `version: ggml-org/llama.cpp tools/server/server.cpp:254 (GET /props), tools/server/server-context.cpp:4633 (build_info), :4614 (total_slots) at ${LLAMACPP_VERSION}`,
      `metrics: ggml-org/llama.cpp tools/server/server-task.cpp:1526 (prompt_tokens_total), :1538 (tokens_predicted_total), :1578 (requests_processing), :1582 (requests_deferred), :1596-1598 (llamacpp: prefix) at ${LLAMACPP_VERSION}`,
      `logs: ggml-org/llama.cpp common/arg.cpp:824 (error: invalid argument), :870 (error while handling argument), tools/server/server.cpp:478 (exiting due to model loading error), ggml/src/ggml-backend.cpp:2451 (failed to allocate buffer), ggml/src/ggml-cuda/ggml-cuda.cu:893 (cudaMalloc failed), ggml/include/ggml.h:288 (GGML_ASSERT) at ${LLAMACPP_VERSION}`,
    ],
  }
}
