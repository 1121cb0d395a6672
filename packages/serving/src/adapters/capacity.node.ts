/**
 * Capacity of one running server: the capacity search of ../capacity.ts with each level measured
 * as a load run on the server (open loop at a Poisson rate, or closed loop at a concurrency) and
 * judged by the latency objectives. Shared by `kerneltune bench capacity` and `sweep --capacity`.
 */
import { KerneltuneError } from '@kerneltune/core'
import { searchCapacity, type CapacityOptions, type CapacityResult, type CapacityUnit } from '../capacity.ts'
import { candidateMetricsOf, evaluate, type Slo, type Violation } from '../objectives.ts'
import type { LoadResult } from '../load-generator.ts'
import type { RequestRecord } from '../request.ts'
import { loadServer, type LevelResult, type LoadServerOptions, type OpenServer } from './serving-session.node.ts'

/** What a capacity point keeps of its load run: enough to see why it met the objectives or not. */
export interface CapacityFigures {
  readonly requests: { readonly completed: number; readonly failed: number }
  readonly durationS: number
  readonly ttftMs: { readonly mean: number; readonly p50: number; readonly p90: number; readonly p99: number }
  readonly tpotMs: { readonly mean: number; readonly p50: number; readonly p90: number; readonly p99: number }
  readonly itlMs: { readonly mean: number; readonly p99: number }
  readonly e2eMs: { readonly mean: number; readonly p99: number }
  readonly requestThroughput: number
  readonly outputTokensPerSecond: number
  readonly goodput: { readonly requestsPerSecond: number; readonly met: number }
  readonly violations: readonly Violation[]
}

/** The search's bounds and effort are bench capacity's flags, as the pure search takes them. */
export interface ServerCapacityOptions extends Pick<CapacityOptions<CapacityFigures>, 'start' | 'min' | 'max' | 'growth' | 'tolerance' | 'repeats' | 'maxMeasurements'> {
  readonly server: OpenServer
  readonly slo: Slo
  readonly unit: CapacityUnit
  /** The load of every level, without the level. */
  readonly load: LoadServerOptions['load']
  /** Measured requests per level; a closed-loop level sends at least two per stream. */
  readonly requests: number
  /**
   * Open loop: send at least rate x this many seconds of arrivals per level. A fixed request count
   * shortens the measurement as the rate grows, and above the server's service rate the queue
   * needs time to build: 24 requests at 40/s last 0.6 s, too short for an overloaded server's TTFT
   * to show it. Default 0 (just `requests`).
   */
  readonly minSeconds?: number
  /** Loads the server had before (fresh prompts per load, see loadServer). Default 0. */
  readonly loadsBefore?: number
  readonly signal?: AbortSignal
  /**
   * When the search must end (Date.now() clock): no level starts that the last measurement, scaled
   * by the requests the level sends, says would end after it. One that started before it is let
   * finish, unless it is still running one measurement (the longest so far, or its own estimate)
   * past it: then it is cancelled and dropped. The result is the interval measured so far, stop
   * 'deadline'. (A server whose requests were cut can take seconds to stop: cutting is the
   * last resort.)
   */
  readonly deadlineAt?: number
  readonly onProgress?: (message: string) => void
  /** Receives each level's request records (for --records), and the whole load run (for a stored run's repetition). */
  readonly onRecords?: (level: number, repeat: number, records: readonly RequestRecord[], run: LoadResult) => void
}

const r = (d: { mean: number; p50: number; p90: number; p99: number }) => ({ mean: d.mean, p50: d.p50, p90: d.p90, p99: d.p99 })

export async function serverCapacity(o: ServerCapacityOptions): Promise<CapacityResult<CapacityFigures>> {
  let loads = o.loadsBefore ?? 0
  const deadlineAt = o.deadlineAt
  // Aborted once the time is up: the search starts no other measurement.
  const ended = new AbortController()
  // The last measurement, scaled by requests, estimates the next: a closed loop above saturation
  // takes time in proportion to its requests (below it, this overestimates).
  let last: { ms: number; requests: number } | undefined
  let longestMs = 0
  const measure: CapacityOptions<CapacityFigures>['measure'] = async (level, info) => {
    const levels = o.unit === 'req/s' ? [{ rate: level }] : [{ concurrency: level }]
    const requests = o.unit === 'req/s' ? Math.max(o.requests, Math.ceil(level * (o.minSeconds ?? 0))) : Math.max(o.requests, 2 * level)
    const estimateMs = last ? last.ms * Math.max(1, requests / last.requests) : 0
    if (deadlineAt !== undefined && Date.now() + estimateMs > deadlineAt) {
      ended.abort()
      throw new KerneltuneError('CANCELLED', 'the time left cannot hold another measurement')
    }
    // Cut only one measurement past the deadline: a level that started inside it may end after it.
    const cut = deadlineAt === undefined ? undefined : new AbortController()
    const cutAfterMs = Math.max(0, (deadlineAt ?? 0) - Date.now()) + Math.max(estimateMs, longestMs)
    const timer = cut ? setTimeout(() => {
      ended.abort()
      cut.abort()
    }, cutAfterMs) : undefined
    const signal = cut ? (o.signal ? AbortSignal.any([o.signal, cut.signal]) : cut.signal) : o.signal
    const t0 = Date.now()
    o.onProgress?.(`${o.unit === 'req/s' ? `rate ${level}/s` : `concurrency ${level}`} (${info.phase}${info.phase === 'bisect' ? `, repeat ${info.repeat + 1}` : ''})`)
    let run: LevelResult | undefined
    try {
      // Warm-ups only before the first load: the server is warm after it.
      ;[run] = await loadServer(o.server, { load: { ...o.load, requests, ...(loads > (o.loadsBefore ?? 0) ? { warmups: 0 } : {}) }, levels, loadsBefore: loads++, ...(signal ? { signal } : {}) })
    } finally {
      clearTimeout(timer)
    }
    last = { ms: Date.now() - t0, requests }
    longestMs = Math.max(longestMs, last.ms)
    const m = candidateMetricsOf(run!.records, o.slo, run!.metrics.durationS)
    const e = evaluate(m, o.slo)
    o.onRecords?.(level, info.repeat, run!.records, run!)
    return {
      feasible: e.feasible,
      figures: {
        requests: m.requests,
        durationS: run!.metrics.durationS,
        ttftMs: r(m.ttftMs),
        tpotMs: r(m.tpotMs),
        itlMs: { mean: m.itlMs.mean, p99: m.itlMs.p99 },
        e2eMs: { mean: m.e2eMs.mean, p99: m.e2eMs.p99 },
        requestThroughput: m.requestThroughput,
        outputTokensPerSecond: m.outputTokensPerSecond,
        goodput: m.goodput ?? { requestsPerSecond: 0, met: 0 },
        violations: e.violations,
      },
    }
  }
  return searchCapacity<CapacityFigures>({
    unit: o.unit,
    start: o.start,
    ...(o.min === undefined ? {} : { min: o.min }),
    ...(o.max === undefined ? {} : { max: o.max }),
    ...(o.growth === undefined ? {} : { growth: o.growth }),
    ...(o.tolerance === undefined ? {} : { tolerance: o.tolerance }),
    ...(o.repeats === undefined ? {} : { repeats: o.repeats }),
    ...(o.maxMeasurements === undefined ? {} : { maxMeasurements: o.maxMeasurements }),
    ...(deadlineAt === undefined ? {} : { deadline: ended.signal }),
    measure,
  })
}
