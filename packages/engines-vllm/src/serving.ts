/**
 * `vllm serve` as a live server (the serving capability of the engine contract). Where each fact
 * was read is in `evidence`, in VERSIONS.md's notation. The vLLM repository is too large to fetch
 * here and the code index holds no file at a release tag (VERSIONS.md §1), so release facts come
 * from versioned docs pages (`docs@vX:page`, which print a file's source at tag vX). For v0.32.0,
 * the release this capability pins, none of the three facts could be read: the v0.32.0 metrics
 * page exists but only its top was readable, and no v0.32.0 page of the health or version routes
 * is stored. So each evidence line says "not verified at v0.32.0" and names the nearest release or
 * stored copy that was read. The routes and names there are the ones vLLM's v1 engine has kept
 * (the KV-cache gauge `vllm:kv_cache_usage_perc` replaced `vllm:gpu_cache_usage_perc` in 0.9).
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
      'readiness: not verified at v0.32.0 (no v0.32.0 page of the route is stored); docs@v0.17.1:vllm/entrypoints/serve/instrumentator/health.py "@router.get(\"/health\", response_class=Response)" → 200, "except EngineDeadError: return Response(status_code=503)" (the same at docs@v0.15.0)',
      'version: not verified at v0.32.0; vllm-project/vllm@dcbf2004 (stored copy, release not known):vllm/entrypoints/serve/instrumentator/basic.py L54-56 "@router.get(\"/version\")" … "ver = {\"version\": VLLM_VERSION}"',
      'metrics: not verified at v0.32.0: docs@v0.32.0:usage/metrics "These metrics are exposed via the /metrics endpoint" was read only to its table\'s first row (vllm:admission_rejections); the names come from vllm-project/vllm@005a810b (stored copy, release not known):vllm/v1/metrics/loggers.py PrometheusStatLogger Gauge "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc" ("Deprecated in 0.9 - Renamed as vllm:kv_cache_usage_perc"), Counter "vllm:prompt_tokens", "vllm:generation_tokens", "vllm:prefix_cache_hits", which prometheus_client exposes as vllm:prompt_tokens_total, vllm:generation_tokens_total, vllm:prefix_cache_hits_total; vllm main docs/design/metrics.md still lists vllm:num_requests_running and vllm:kv_cache_usage_perc',
      'listen: vllm serve --host/--port (vllm/entrypoints/openai/cli_args.py, stored copy; not verified at v0.32.0)',
      'logs: CPython Lib/argparse.py "unrecognized arguments: %s"; PyTorch torch.OutOfMemoryError "CUDA out of memory"; vllm/v1/engine/exceptions.py EngineDeadError (not verified at v0.32.0)',
    ],
  }
}
