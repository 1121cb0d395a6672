/**
 * @module @kerneltune/serving
 * Measuring inference servers under serving load. This entry point is runtime-neutral: an
 * OpenAI-compatible streaming load generator (closed loop at a concurrency, open loop with seeded
 * Poisson arrivals), metrics with the definitions of vLLM's benchmark_serving (TTFT, TPOT, ITL,
 * end-to-end latency, throughput, goodput), a Prometheus text parser and the client/server
 * cross-check, latency objectives (`ttft_p99_ms=500`: feasibility, goodput, ranking, the Pareto
 * front) and the capacity search. Launching servers and the server measurement backend are in
 * `@kerneltune/serving/node`.
 *
 * @example
 * ```ts
 * import { runLoad } from '@kerneltune/serving'
 * const r = await runLoad({ baseUrl: 'http://127.0.0.1:8080', workload: { kind: 'synthetic', promptTokens: 64, outputTokens: 32 }, requests: 32, concurrency: 4 })
 * console.log(r.metrics.ttftMs.p99, r.metrics.outputTokensPerSecond)
 * ```
 */
export { searchCapacity, type CapacityOptions, type CapacityPoint, type CapacityResult, type CapacityUnit } from './capacity.ts'
export { capacityJson, capacityLine, levelText } from './capacity-line.ts'
export { crossCheck, type CrossCheck, type ServerReported } from './cross-check.ts'
export { runLoad, type LoadOptions, type LoadResult } from './load-generator.ts'
export { computeServingMetrics, tpotOf, type LatencyObjectives, type ServingMetrics } from './metrics.ts'
export {
  better,
  candidateMetricsOf,
  decide,
  describeSlo,
  describeViolation,
  evaluate,
  formatSlo,
  latencyValue,
  LatencyObjectiveSchema,
  OBJECTIVE_NAMES,
  objectiveValue,
  paretoAxes,
  paretoFront,
  parseObjective,
  parseSlo,
  rankCandidates,
  requestMeets,
  SLO_METRICS,
  SLO_NAMES,
  SLO_STATS,
  sloGoodput,
  SloSchema,
  THROUGHPUT_OBJECTIVES,
  type CandidateMetrics,
  type Decision,
  type Evaluation,
  type LatencyObjective,
  type Objective,
  type ParetoAxes,
  type RankedCandidate,
  type Slo,
  type SloMetric,
  type SloStat,
  type ThroughputObjective,
  type Violation,
} from './objectives.ts'
export { assess, assessCandidate, objectivesRecord, resolveObjectives, sloRecord, type Assessment, type CandidateAssessment, type Objectives } from './assessment.ts'
export { recordLine, recordLines, type RecordLine } from './records.ts'
export { exponential, seededRandom, shuffled, uniformInt, type Random } from './prng.ts'
export { metricValue, parsePrometheus, type PrometheusMetrics, type PrometheusSample } from './prometheus.ts'
export { requestBody, sendRequest, type RequestOptions, type RequestRecord, type ServerTimings } from './request.ts'
export { readSse, sseEventParser, sseParser, type SseEvent, type SseEventParser, type SseParser } from './sse.ts'
export { percentile, summarize, type Distribution } from './summary.ts'
export { higherIsBetterFor, improvementText, signedPercent, unitOf, withUnit } from './units.ts'
export { parseDatasetJsonl, requestSpec, SERVING_APIS, WorkloadSpecSchema, type RequestSpec, type ServingApi, type WorkloadSpec } from './workload.ts'
