/**
 * trueno's `compute_roofline_bound` (§A.4), reproduced from the feature vector alone:
 * params = 10^(f0·3 − 1), bw = f35·3000, batch = max(f6·64, 1), bytes/param from the quant
 * one-hot via upstream's table, result clamp(bw·batch / (params·bpp), 1, 10000).
 * Values are reported at f32 precision, as upstream computes them.
 * Upstream quirk kept on purpose: the quant slot is picked with ties going to the LAST index, so
 * an all-zero one-hot means F32 (4 bytes). 7B Q4K at 1008 GB/s, batch 1 → 256.0 tok/s.
 */
import {
  DIM,
  QUANT_OFFSET,
  TRUENO_QUANT_BYTES,
  TRUENO_QUANT_TYPES,
  argmaxLast,
  denormParams,
  featuresBuilder,
  toVector,
  type TruenoQuant,
  type TunerFeatures,
} from '@kerneltune/features'
import { KerneltuneError } from '@kerneltune/core'

export const TRUENO_BOUND_MIN = 1
export const TRUENO_BOUND_MAX = 10_000

export interface TruenoBoundDetail {
  boundTps: number
  /** The unclamped value, to show when the clamp applied. */
  rawTps: number
  paramsB: number
  memBwGbs: number
  batch: number
  quant: TruenoQuant
  bytesPerParam: number
  /** True when the quant one-hot was all zero and upstream's tie rule chose F32. */
  quantFromEmptyOneHot: boolean
  explanation: string
}

function vectorOf(input: TunerFeatures | readonly number[]): readonly number[] {
  const v = Array.isArray(input) ? (input as readonly number[]) : toVector(input as TunerFeatures)
  if (v.length !== DIM) throw new KerneltuneError('INVALID_FEATURE', `Invalid feature: vector has ${v.length} values, expected ${DIM}`)
  return v
}

/** Upstream's bound with the decoded inputs and a one-line explanation. */
export function truenoRooflineDetail(input: TunerFeatures | readonly number[]): TruenoBoundDetail {
  const v = vectorOf(input)
  const paramsB = denormParams(v[0]!)
  const memBwGbs = v[35]! * 3000
  const batch = Math.max(v[6]! * 64, 1)
  const onehot = v.slice(QUANT_OFFSET, QUANT_OFFSET + TRUENO_QUANT_TYPES.length)
  const idx = argmaxLast(onehot)
  const quant = TRUENO_QUANT_TYPES[idx]!
  const bytesPerParam = TRUENO_QUANT_BYTES[idx]!
  // Upstream computes in f32; rounding the result to f32 drops the float64 noise of the
  // normalise/denormalise round trip (255.99999999999997 → 256) without changing the value.
  const rawTps = Math.fround((memBwGbs * batch) / (paramsB * bytesPerParam))
  const boundTps = Math.min(Math.max(rawTps, TRUENO_BOUND_MIN), TRUENO_BOUND_MAX)
  const empty = onehot.every((x) => x === 0)
  const explanation =
    `trueno bound: ${memBwGbs.toFixed(1)} GB/s × batch ${batch.toFixed(2)} ÷ (${paramsB.toFixed(3)}B params × ${bytesPerParam} B/param, ${quant}` +
    `${empty ? ' chosen by upstream\'s tie rule for an empty one-hot' : ''}) = ${rawTps.toFixed(1)} tok/s` +
    (rawTps === boundTps ? '' : `, clamped to ${boundTps}`)
  return { boundTps, rawTps, paramsB: Math.fround(paramsB), memBwGbs: Math.fround(memBwGbs), batch: Math.fround(batch), quant, bytesPerParam, quantFromEmptyOneHot: empty, explanation }
}

/** `compute_roofline_bound(f)`: tokens/s, in [1, 10000]. */
export function truenoRooflineBound(input: TunerFeatures | readonly number[]): number {
  return truenoRooflineDetail(input).boundTps
}

/** The same bound from plain inputs (builds the features, then decodes them as upstream does). */
export function truenoRooflineFrom(opts: { paramsB: number; quant: string; memBwGbs: number; batch?: number }): TruenoBoundDetail {
  const f = featuresBuilder().modelParamsB(opts.paramsB).quantType(opts.quant).gpuMemBwGbs(opts.memBwGbs).batchSize(opts.batch ?? 1).build()
  return truenoRooflineDetail(f)
}
