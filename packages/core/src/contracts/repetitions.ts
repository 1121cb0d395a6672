/**
 * The loop and the arithmetic every in-process generation backend shares (node-llama-cpp,
 * onnxruntime-node): warm-ups, then repetitions, cancellable between them, with progress; and the
 * metrics of one generation timed at the prompt, the first token and the last.
 */
import { KerneltuneError } from '../errors.ts'
import type { MeasurementRequest, RepetitionMetrics } from './measurement.ts'

/**
 * Runs `request.warmups` unrecorded and `request.repetitions` recorded calls of `one` (given the
 * 0-based index over both), stops with CANCELLED between calls once the request's signal is
 * aborted, and reports each finished call to `onProgress`.
 */
export async function runRepetitions(request: MeasurementRequest, one: (index: number) => Promise<RepetitionMetrics>): Promise<RepetitionMetrics[]> {
  const total = request.warmups + request.repetitions
  const recorded: RepetitionMetrics[] = []
  for (let i = 0; i < total; i++) {
    if (request.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the measurement was cancelled')
    const rep = await one(i)
    if (i >= request.warmups) recorded.push(rep)
    request.onProgress?.(i + 1, total)
  }
  return recorded
}

/** Clock readings (ms, one clock) and counts of one generation after a separately timed prefill. */
export interface GenerationTiming {
  readonly promptTokens: number
  /** The prompt evaluated alone, without generating. */
  readonly prefillMs: number
  /** The generation's start, its first token and its last. */
  readonly startMs: number
  readonly firstMs: number
  readonly lastMs: number
  /** Tokens generated, the first included. */
  readonly tokens: number
  /** Memory at its peak and before the model was loaded, in bytes. */
  readonly peakBytes: number
  readonly baselineBytes: number
}

/**
 * One repetition's metrics: decode speed between the first and the last token (so it excludes
 * the prompt), TTFT and latency from the start, memory above the baseline.
 */
export function generationMetrics(t: GenerationTiming): RepetitionMetrics {
  return {
    latencyMs: t.lastMs - t.startMs,
    ttftMs: t.firstMs - t.startMs,
    prefillTps: (t.promptTokens / t.prefillMs) * 1000,
    decodeTps: ((t.tokens - 1) / (t.lastMs - t.firstMs)) * 1000,
    throughputTps: (t.tokens / (t.lastMs - t.startMs)) * 1000,
    peakMemoryBytes: Math.max(0, t.peakBytes - t.baselineBytes),
    breakdown: { prefillMs: t.prefillMs, decodeMs: t.lastMs - t.firstMs },
  }
}
