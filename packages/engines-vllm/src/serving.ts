/**
 * `vllm serve` as a live server (the serving capability of the engine contract). Where each fact
 * was read is in `evidence`. The vLLM repository is too large to fetch here and its index holds
 * no file at a release tag (VERSIONS.md §1), so these facts are read from the stored upstream
 * copies named below, not at the v0.32.0 tag; the routes and metric names are the ones vLLM has
 * kept across its 0.x releases (they are in both its old and new file layouts).
 */
import type { ServingCapability, ServingIdentity } from '@kerneltune/core'
import { VLLM_DEFAULT_VERSION } from './releases.ts'

/** vLLM's Prometheus names (prometheus_client appends `_total` to a Counter's name). */
export const VLLM_METRICS = {
  promptTokens: 'vllm:prompt_tokens_total',
  generatedTokens: 'vllm:generation_tokens_total',
  requestsRunning: 'vllm:num_requests_running',
  requestsWaiting: 'vllm:num_requests_waiting',
  kvCacheUsage: 'vllm:kv_cache_usage_perc',
  cachedPromptTokens: 'vllm:prefix_cache_hits_total',
} as const

/** /version answers `{"version": VLLM_VERSION}`. */
function readVersion(body: unknown): ServingIdentity | undefined {
  const v = (body as { version?: unknown } | null)?.version
  return typeof v === 'string' && v !== '' ? { version: `vLLM ${v}` } : undefined
}

export function vllmServing(version: string = VLLM_DEFAULT_VERSION): ServingCapability {
  return {
    binary: { program: 'vllm', envVar: 'KERNELTUNE_VLLM', installHint: `install it with \`pip install vllm==${version}\` (a CUDA or ROCm machine), or set KERNELTUNE_VLLM to the vllm executable` },
    listenArgs: ['--host', '{host}', '--port', '{port}'],
    readiness: { path: '/health' },
    version: { path: '/version', read: readVersion },
    metrics: {
      names: { promptTokens: VLLM_METRICS.promptTokens, generatedTokens: VLLM_METRICS.generatedTokens, requestsRunning: VLLM_METRICS.requestsRunning, requestsWaiting: VLLM_METRICS.requestsWaiting, kvCacheUsage: VLLM_METRICS.kvCacheUsage },
      cachedPromptTokens: VLLM_METRICS.cachedPromptTokens,
    },
    logs: {
      outOfMemory: [/torch\.OutOfMemoryError|CUDA out of memory|No available memory for the cache blocks/i],
      // Python argparse: "vllm serve: error: unrecognized arguments: ..." / "error: argument --x: invalid choice".
      refused: [/: error: (unrecognized arguments|argument )/, /ValueError: /],
      crashed: [/EngineDeadError|Engine core initialization failed|Traceback \(most recent call last\)/],
    },
    evidence: [
      'readiness: vllm-project/vllm@055e47c2 (stored copy, not the v0.32.0 tag):vllm/entrypoints/serve/instrumentator/health.py `@router.get("/health")` → 200, 503 on EngineDeadError',
      'version: vllm-project/vllm (stored copies of vllm/entrypoints/openai/api_server.py, not at the tag) `@router.get("/version")` → `{"version": VLLM_VERSION}`',
      'metrics: vllm-project/vllm (stored copy of vllm/v1/metrics/loggers.py, not at the tag) Counter "vllm:prompt_tokens", "vllm:generation_tokens", Gauge "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc"',
      'listen: vllm serve --host/--port (vllm/entrypoints/openai/cli_args.py, stored copy, not at the tag)',
      'logs: CPython Lib/argparse.py "unrecognized arguments: %s"; PyTorch torch.OutOfMemoryError "CUDA out of memory"; vllm/v1/engine/exceptions.py EngineDeadError (not read at the tag)',
    ],
  }
}
