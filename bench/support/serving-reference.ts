/**
 * The analysis of bench/serving-reference.bench.ts: each setting measured in blocks, a block being
 * one fresh llama-server and many back-to-back repetitions on it. The unit of the test is the
 * block, not the repetition: repetitions on one server share that launch (its thread placement,
 * its memory), so counting them as independent would make a difference between two launches of
 * the same settings look significant. Each block is summarised by the trimmed mean of its
 * repetitions, and a setting is compared with the defaults by Yuen's test on those block values
 * (Welch's test on trimmed means, @kerneltune/stats compareToBaseline).
 */
import { compareToBaseline, trimmedMean } from '@kerneltune/stats'
import type { Verdict } from './serving-noise-summary.ts'

/** Trimming of a block's repetitions, and of the block values in the test. */
export const REP_TRIM = 0.2
export const BLOCK_TRIM = 0.2

export interface Block {
  readonly label: string
  /** The block's repetitions of the metric (higher is better). */
  readonly values: readonly number[]
}

/** One value per block: the trimmed mean of its repetitions. */
export function blockValues(blocks: readonly Block[], label: string): number[] {
  return blocks.filter((b) => b.label === label && b.values.length > 0).map((b) => trimmedMean(b.values, REP_TRIM))
}

/** A setting against the baseline, in the shape bench/serving-noise.bench.ts records verdicts. */
export function compareBlocks(blocks: readonly Block[], label: string, baseline: string): Verdict & { readonly blocks: number; readonly baselineBlocks: number } {
  const a = blockValues(blocks, label)
  const b = blockValues(blocks, baseline)
  if (a.length < 2 || b.length < 2) return { verdict: 'n/a', improvement: Number.NaN, p: Number.NaN, df: Number.NaN, blocks: a.length, baselineBlocks: b.length }
  const c = compareToBaseline(a, b, { higherIsBetter: true, trim: BLOCK_TRIM })
  return { verdict: c.verdict, improvement: c.improvement, p: c.welch.pValue, df: c.welch.df, blocks: a.length, baselineBlocks: b.length }
}

/** Coefficient of variation of a setting's block values: how much launches and time moved it. */
export function blockCv(blocks: readonly Block[], label: string): number {
  const x = blockValues(blocks, label)
  if (x.length < 2) return Number.NaN
  const m = x.reduce((s, v) => s + v, 0) / x.length
  return Math.sqrt(x.reduce((s, v) => s + (v - m) ** 2, 0) / (x.length - 1)) / m
}
