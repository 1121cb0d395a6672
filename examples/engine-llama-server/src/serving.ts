/**
 * The plugin's serving capability: what kerneltune's generic `server` backend needs to launch
 * llama-server from a translation and read it back. Plain data and two small functions, from the
 * same llama.cpp source as the flags (tag v0.5.0, commit de3ff81, as node-llama-cpp 3.22.1 bundles
 * it); each fact says where it was read.
 */
import type { ServingCapability, ServingIdentity } from '@kerneltune/core'

/** /props gives `build_info` and the slot count it chose (`total_slots`). */
function readProps(body: unknown): ServingIdentity | undefined {
  const p = body as { build_info?: unknown; total_slots?: unknown } | null
  if (typeof p?.build_info !== 'string') return undefined
  return { version: `llama.cpp ${p.build_info}`, ...(typeof p.total_slots === 'number' ? { slots: p.total_slots } : {}) }
}

export function llamaServerServing(): ServingCapability {
  return {
    // The program on PATH; KERNELTUNE_LLAMA_SERVER names another one.
    binary: { program: 'llama-server', envVar: 'KERNELTUNE_LLAMA_SERVER', installHint: 'install llama.cpp (its llama-server binary) v0.5.0 or set KERNELTUNE_LLAMA_SERVER to one' },
    // The translation writes no listen address: the launcher's goes after it.
    listenArgs: ['--host', '{host}', '--port', '{port}'],
    readiness: { path: '/health', modelLoadedLine: /:\s*model loaded\s*$/ },
    version: { path: '/props', read: readProps },
    metrics: {
      names: { promptTokens: 'llamacpp:prompt_tokens_total', generatedTokens: 'llamacpp:tokens_predicted_total', requestsRunning: 'llamacpp:requests_processing', requestsWaiting: 'llamacpp:requests_deferred' },
      lacks: { kvCacheUsage: 'llama-server v0.5.0 exports no KV-cache usage' },
      enableArgs: ['--metrics'],
    },
    logs: {
      outOfMemory: [/cudaMalloc failed|failed to allocate (buffer|graph)/i],
      refused: [/error: invalid argument|error while handling argument|exiting due to model loading error/i],
      crashed: [/GGML_ASSERT\(.*\) failed|Segmentation fault/],
    },
    evidence: [
      'readiness: ggml-org/llama.cpp@v0.5.0:tools/server/server.cpp:251 (GET /health), :485 (model loaded)',
      'version: ggml-org/llama.cpp@v0.5.0:tools/server/server.cpp:254 (GET /props), tools/server/server-context.cpp:4633 (build_info)',
      'metrics: ggml-org/llama.cpp@v0.5.0:tools/server/server-task.cpp:1526, :1538, :1578, :1582 (llamacpp: prefix, :1598)',
    ],
  }
}
