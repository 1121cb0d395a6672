/**
 * One measured point of predict-vs-measure.ts and the pieces it is made of (the phases, the fields
 * of a prediction kept). Its own module because the calibration fills these points and the table
 * renders them: with the type in either, the two would import each other.
 */
import type { Prediction } from '@kerneltune/core'
import type { ThroughputQueryInput } from '@kerneltune/regressor'

export const PHASES = ['decode', 'prefill'] as const
export type Phase = (typeof PHASES)[number]

/** The fields of a Prediction this report keeps. */
export const slim = (p: Prediction & { interval?: { low: number; high: number; level: number } }) => ({ predictedTps: p.predictedTps, rooflineTps: p.rooflineTps, capped: p.capped, rawTps: p.rawTps, confidence: p.confidence, model: p.model, ...(p.interval ? { interval: p.interval } : {}) })

type Slim = ReturnType<typeof slim>

export interface ReportPoint {
  size: string
  quant: string
  params: number
  bytes: number
  device: string
  calibration: boolean
  query: Record<Phase, ThroughputQueryInput>
  predicted: Record<Phase, Slim>
  calibrated?: Record<Phase, Slim>
  binding: Record<Phase, 'memory' | 'compute'>
  measured: Record<Phase, number>
  ci: Record<Phase, [number, number] | undefined>
}
