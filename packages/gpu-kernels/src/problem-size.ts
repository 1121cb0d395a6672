/**
 * Problem sizes as people give them (`1x4096x4096`: activation rows × outputs × inputs) and the
 * default ones, small enough for lavapipe on two CPU cores (pass larger ones on real GPUs).
 */
import { KerneltuneError } from '@kerneltune/core'
import type { KernelKind } from './types.ts'

export interface ProblemSize { m: number; n: number; k: number }

export const DEFAULT_SIZES: Record<KernelKind, ProblemSize> = { gemv: { m: 1, n: 256, k: 1024 }, gemm: { m: 32, n: 128, k: 512 } }

/** "MxNxK" → a size; `label` (a flag, e.g. --gemv-size) names it in the INVALID_INPUT error. */
export function parseProblemSize(text: string, label: string): ProblemSize {
  const m = /^(\d+)x(\d+)x(\d+)$/.exec(text)
  if (!m) throw new KerneltuneError('INVALID_INPUT', `${label} expects MxNxK (e.g. 1x4096x4096), got "${text}"`)
  const [a, b, c] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (!a || !b || !c || c % 32 !== 0) throw new KerneltuneError('INVALID_INPUT', `${label}: sizes must be positive and K a multiple of 32, got "${text}"`)
  return { m: a, n: b, k: c }
}
