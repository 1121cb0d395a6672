/**
 * `trtllm-serve` as a live server (the serving capability of the engine contract). The
 * TensorRT-LLM repository is not fetched here; these facts come from the stored upstream copy of
 * tensorrt_llm/serve/openai_server.py (NVIDIA/TensorRT-LLM@e7f7345e), not from a release tag, and
 * `evidence` says so. Its `/metrics` answers iteration statistics as JSON, not Prometheus text, so
 * the capability maps no counter and says why.
 */
import type { ServingCapability, ServingIdentity } from '@kerneltune/core'
import { TRTLLM_SERVE_VERSIONS } from './serve-releases.ts'

/** /version answers `{"version": VERSION}`. */
function readVersion(body: unknown): ServingIdentity | undefined {
  const v = (body as { version?: unknown } | null)?.version
  return typeof v === 'string' && v !== '' ? { version: `TensorRT-LLM ${v}` } : undefined
}

const NO_PROMETHEUS = 'trtllm-serve /metrics returns iteration statistics as JSON (openai_server.py register_routes: "the metrics endpoint only reports iteration stats"), not Prometheus text'

export function trtllmServeServing(version: string = TRTLLM_SERVE_VERSIONS[0]): ServingCapability {
  return {
    binary: { program: 'trtllm-serve', envVar: 'KERNELTUNE_TRTLLM_SERVE', installHint: `install it with \`pip install tensorrt_llm==${version}.*\` (an NVIDIA GPU machine), or set KERNELTUNE_TRTLLM_SERVE to the trtllm-serve executable` },
    listenArgs: ['--host', '{host}', '--port', '{port}'],
    readiness: { path: '/health' },
    version: { path: '/version', read: readVersion },
    metrics: {
      names: {},
      lacks: { promptTokens: NO_PROMETHEUS, generatedTokens: NO_PROMETHEUS, requestsRunning: NO_PROMETHEUS, requestsWaiting: NO_PROMETHEUS, kvCacheUsage: NO_PROMETHEUS },
    },
    logs: {
      outOfMemory: [/CUDA out of memory|OutOfMemoryError|out of memory/i],
      // click's own messages for an option the command does not accept.
      refused: [/Error: (No such option|Invalid value)/],
      crashed: [/Traceback \(most recent call last\)|RuntimeError: |Segmentation fault/],
    },
    evidence: [
      'readiness: NVIDIA/TensorRT-LLM@e7f7345e (stored copy, not a release tag):tensorrt_llm/serve/openai_server.py register_routes `add_api_route("/health", ...)` → 200',
      'version: NVIDIA/TensorRT-LLM@e7f7345e (stored copy, not a release tag):tensorrt_llm/serve/openai_server.py `add_api_route("/version", ...)` → `{"version": VERSION}`',
      'metrics: NVIDIA/TensorRT-LLM@e7f7345e (stored copy, not a release tag):tensorrt_llm/serve/openai_server.py `add_api_route("/metrics", self.get_iteration_stats)` — JSON, not Prometheus',
      'listen: trtllm-serve --host/--port (tensorrt_llm/commands/serve.py click options; not read at a tag here)',
    ],
  }
}
