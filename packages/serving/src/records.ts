/**
 * `--records FILE`: one JSON line per measured request, so every figure (latency statistics,
 * throughput, goodput, feasibility) can be recomputed from the file. `startMs` is the client clock
 * at which the request was sent (durations come from it), `itlMs` its chunk gaps.
 */
import { tpotOf } from './metrics.ts'
import type { RequestRecord } from './request.ts'

export interface RecordLine {
  /** Which measured candidate (configuration or load level) the request belongs to. */
  readonly candidate: number
  readonly ok: boolean
  readonly ttftMs: number | null
  readonly tpotMs: number | null
  readonly e2eMs: number
  readonly outputTokens: number | null
  readonly startMs: number
  readonly itlMs: readonly number[]
  readonly error?: string
  /** Extra labels of the caller (round, level, repeat). */
  readonly [label: string]: unknown
}

export function recordLine(candidate: number, r: RequestRecord, labels: Readonly<Record<string, unknown>> = {}): RecordLine {
  return {
    candidate,
    ...labels,
    ok: r.ok,
    ttftMs: r.ttftMs ?? null,
    tpotMs: tpotOf(r) ?? null,
    e2eMs: r.e2eMs,
    outputTokens: r.outputTokens ?? null,
    startMs: r.startMs,
    itlMs: r.itlMs,
    ...(r.error === undefined ? {} : { error: r.error }),
  }
}

/** JSON lines, one per record, ending in a newline (empty string for none). */
export const recordLines = (lines: readonly RecordLine[]): string => lines.map((l) => JSON.stringify(l) + '\n').join('')
