/**
 * `trtllm-serve` as a live server (the serving capability of the engine contract). The
 * TensorRT-LLM repository is too large to fetch here and the code index holds
 * tensorrt_llm/serve/openai_server.py only at commits not mapped to a release, and no 1.3.0rc11
 * page of trtllm-serve's routes is stored. So `evidence` says "not verified at 1.3" and names what
 * was read: the trtllm-serve pages of the releases on either side of 1.3 (1.1.0rc5 and 1.4.0rc4,
 * which list the same /health, /metrics and /version) and a stored copy of the server. Its
 * `/metrics` answers iteration statistics as JSON, not Prometheus text, so the capability maps no
 * counter. A Prometheus endpoint (/prometheus/metrics) exists only when the LLM API option
 * `return_perf_metrics` is set, and its names were not read at 1.3, so it is not used.
 */
import type { ServingCapability, ServingIdentity } from '@kerneltune/core'
import { TRTLLM_SERVE_VERSIONS } from './serve-releases.ts'

/** /version answers `{"version": VERSION}`. */
function readVersion(body: unknown): ServingIdentity | undefined {
  const v = (body as { version?: unknown } | null)?.version
  return typeof v === 'string' && v !== '' ? { version: `TensorRT-LLM ${v}` } : undefined
}

const NO_PROMETHEUS = 'trtllm-serve /metrics returns iteration statistics as JSON (openai_server.py register_routes: "the metrics endpoint only reports iteration stats"), not Prometheus text; its Prometheus endpoint /prometheus/metrics is mounted only with the LLM API option return_perf_metrics, and its names were not read at 1.3'

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
      'readiness: not verified at 1.3 (no 1.3.0rc11 page of the routes is stored); docs@1.1.0rc5 and docs@1.4.0rc4:commands/trtllm-serve/trtllm-serve.html "The server also supports the following endpoints: /health, /metrics, /version"; NVIDIA/TensorRT-LLM@00057725 (stored copy, release not known):tensorrt_llm/serve/openai_server.py register_routes "self.app.add_api_route(\"/health\", self.health, methods=[\"GET\"])", health() → 200, else 503 "LLM is unavailable"',
      'version: not verified at 1.3; the same docs pages list /version; NVIDIA/TensorRT-LLM@00057725 (stored copy):tensorrt_llm/serve/openai_server.py "self.app.add_api_route(\"/version\", self.version, methods=[\"GET\"])", "ver = {\"version\": VERSION}" with "from tensorrt_llm.version import __version__ as VERSION"',
      'metrics: not verified at 1.3: docs@1.1.0rc5 and docs@1.4.0rc4:commands/trtllm-serve/trtllm-serve.html "The metrics endpoint provides runtime-iteration statistics such as GPU memory use and inflight-batching details"; NVIDIA/TensorRT-LLM@00057725 (stored copy):tensorrt_llm/serve/openai_server.py "# TODO: the metrics endpoint only reports iteration stats", add_api_route("/metrics", self.get_iteration_stats) → JSONResponse, and "if self.generator.args.return_perf_metrics: # register /prometheus/metrics"; the 1.3.0rc11 docs list a "Prometheus Metrics" example, whose names were not read (a 2026 copy, NVIDIA/TensorRT-LLM@050f80de:tensorrt_llm/metrics/collector.py, has trtllm_prompt_tokens_total, trtllm_generation_tokens_total, trtllm_num_requests_running, trtllm_num_requests_waiting, trtllm_kv_cache_utilization)',
      'listen: trtllm-serve --host/--port (tensorrt_llm/commands/serve.py click options; not verified at 1.3)',
    ],
  }
}
