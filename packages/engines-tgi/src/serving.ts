/**
 * `text-generation-launcher` as a live server (the serving capability of the engine contract),
 * read from huggingface/text-generation-inference at tag v3.3.7 (dfb3fbe78e0d), the release the
 * plugin targets; `evidence` names file and line.
 */
import type { ServingCapability, ServingIdentity } from '@kerneltune/core'
import { TGI_VERSIONS } from './releases.ts'

/**
 * TGI's Prometheus names. Token counts are histograms (metrics-exporter-prometheus writes their
 * totals as `<name>_sum`).
 */
export const TGI_METRICS = {
  promptTokens: 'tgi_request_input_length_sum',
  generatedTokens: 'tgi_request_generated_tokens_sum',
  requestsRunning: 'tgi_batch_current_size',
  requestsWaiting: 'tgi_queue_size',
} as const

/** /info: `version` (router/src/lib.rs:294), `model_id` (:264), `max_concurrent_requests` (:276). */
function readInfo(body: unknown): ServingIdentity | undefined {
  const i = body as { version?: unknown; model_id?: unknown; max_concurrent_requests?: unknown } | null
  if (typeof i?.version !== 'string' || i.version === '') return undefined
  return {
    version: `TGI ${i.version}`,
    ...(typeof i.model_id === 'string' && i.model_id ? { modelAlias: i.model_id } : {}),
    ...(typeof i.max_concurrent_requests === 'number' ? { slots: i.max_concurrent_requests } : {}),
  }
}

export function tgiServing(version: string = TGI_VERSIONS[0]): ServingCapability {
  return {
    binary: { program: 'text-generation-launcher', envVar: 'KERNELTUNE_TGI', installHint: `install TGI ${version} (the ghcr.io/huggingface/text-generation-inference:${version} image, or build text-generation-launcher from the v${version} tag), or set KERNELTUNE_TGI to the launcher` },
    listenArgs: ['--hostname', '{host}', '--port', '{port}'],
    readiness: { path: '/health' },
    version: { path: '/info', read: readInfo },
    metrics: {
      names: { promptTokens: TGI_METRICS.promptTokens, generatedTokens: TGI_METRICS.generatedTokens, requestsRunning: TGI_METRICS.requestsRunning, requestsWaiting: TGI_METRICS.requestsWaiting },
      lacks: { kvCacheUsage: 'TGI 3.3.7 exports no KV-cache usage (router/src/server.rs:1996-2104 describes every metric it exports)' },
    },
    logs: {
      outOfMemory: [/Not enough memory to handle|CUDA out of memory|OutOfMemoryError/i],
      // clap's own messages for a flag or value the launcher does not accept.
      refused: [/error: (unexpected argument|invalid value)/],
      crashed: [/Shard \d+ (crashed|failed to start)|Webserver Crashed|Shard process was signaled/],
    },
    evidence: [
      'readiness: huggingface/text-generation-inference@v3.3.7:router/src/server.rs:221 (path = "/health": 200, 503 when down) and :2241 (.route("/health"))',
      'version: huggingface/text-generation-inference@v3.3.7:router/src/server.rs:157 (path = "/info"), :2240 (.route("/info")), :2140 (version: env!("CARGO_PKG_VERSION")); router/src/lib.rs:261 (struct Info), :294 (version)',
      'metrics: huggingface/text-generation-inference@v3.3.7:router/src/server.rs:2243 (.route("/metrics")), :2104 (tgi_request_input_length), :2023 (tgi_request_generated_tokens), :2043 (tgi_batch_current_size), :2047 (tgi_queue_size)',
      'listen: huggingface/text-generation-inference@v3.3.7:launcher/src/main.rs:770 (hostname), :774 (port)',
      'logs: huggingface/text-generation-inference@v3.3.7:server/text_generation_server/models/flash_causal_lm.py:1551 ("Not enough memory to handle"), launcher/src/main.rs:1677 ("Shard {rank} failed to start"), :2335 ("Shard {rank} crashed"), :2342 ("Webserver Crashed")',
    ],
  }
}
