/**
 * @module @kerneltune/serving
 * Measuring inference servers under serving load. This entry point is runtime-neutral: an
 * OpenAI-compatible streaming load generator (closed loop at a concurrency, open loop with seeded
 * Poisson arrivals), metrics with the definitions of vLLM's benchmark_serving (TTFT, TPOT, ITL,
 * end-to-end latency, throughput, goodput), a Prometheus text parser and the client/server
 * cross-check. Launching servers and the server measurement backend are in
 * `@kerneltune/serving/node`.
 *
 * @example
 * ```ts
 * import { runLoad } from '@kerneltune/serving'
 * const r = await runLoad({ baseUrl: 'http://127.0.0.1:8080', workload: { kind: 'synthetic', promptTokens: 64, outputTokens: 32 }, requests: 32, concurrency: 4 })
 * console.log(r.metrics.ttftMs.p99, r.metrics.outputTokensPerSecond)
 * ```
 */
export { crossCheck, LLAMA_SERVER_METRICS, type CrossCheck, type ServerReported } from './cross-check.ts'
export { runLoad, type LoadOptions, type LoadResult } from './load-generator.ts'
export { computeServingMetrics, tpotOf, type LatencyObjectives, type ServingMetrics } from './metrics.ts'
export { exponential, seededRandom, shuffled, uniformInt, type Random } from './prng.ts'
export { metricValue, parsePrometheus, type PrometheusMetrics, type PrometheusSample } from './prometheus.ts'
export { requestBody, sendRequest, type RequestOptions, type RequestRecord, type ServerTimings } from './request.ts'
export { readSse, sseEventParser, sseParser, type SseEvent, type SseEventParser, type SseParser } from './sse.ts'
export { formatSlo, parseSlo, SLO_METRICS, SLO_STATS, type SloMetric, type SloObjective, type SloStat } from './slo.ts'
export { percentile, summarize, type Distribution } from './summary.ts'
export { parseDatasetJsonl, requestSpec, SERVING_APIS, WorkloadSpecSchema, type RequestSpec, type ServingApi, type WorkloadSpec } from './workload.ts'
