/**
 * A small exhaustive-or-sampled search: every valid configuration when there are few, otherwise
 * an evenly spaced sample of them plus the default, each verified then timed; the fastest correct
 * one wins selection. Then a confirmation phase (runConfirmation, @kerneltune/stats) times the
 * winner and the default afresh, interleaved, and only those timings give the reported speed-up:
 * the selection figure is biased upward (winner's curse). Bigger searches belong to the searchers
 * in the tuner packages.
 */
import { kerneltuneError } from '@kerneltune/core'
import { benchmarkKernel, prepareKernel, timeKernel } from './bench.ts'
import { DEFAULT_CONFIRM_ROUNDS, runConfirmation, type ConfirmOptions, type SpeedupConfirmation } from '@kerneltune/stats'
import type { GpuContext } from './gpu.ts'
import { configKey, defaultConfig, enumerateConfigs, isValidConfig } from './params.ts'
import type { KernelBenchResult, KernelKind, MatmulConfig, MatmulProblem, TimingOptions } from './types.ts'

export interface TuneOptions extends TimingOptions {
  /** Most configurations to try (the default is always among them when valid). */
  maxConfigs: number
  /** Paired rounds of the confirmation phase (default 20); 0 skips it, and then no speed-up is reported. */
  confirmRounds?: number
  /** Seed of the confirmation's per-round order. */
  confirmSeed?: number
  onProgress?: (done: number, total: number, last: KernelBenchResult) => void
}

/**
 * Times `baseline` and `candidate` afresh in `rounds` paired rounds (random order per round), each
 * time a batch of `warmup` + `iterations` runs whose median is the round's latency. Both are
 * verified against the CPU reference first; throws MEASUREMENT_FAILED if either is not correct.
 */
export async function confirmSpeedup(gpu: GpuContext, kind: KernelKind, problem: MatmulProblem, baseline: MatmulConfig, candidate: MatmulConfig, opts: TimingOptions & ConfirmOptions): Promise<SpeedupConfirmation> {
  const prepared = { baseline: await prepareKernel(gpu, kind, problem, baseline, opts), candidate: await prepareKernel(gpu, kind, problem, candidate, opts) }
  const b = prepared.baseline
  const c = prepared.candidate
  if ('failed' in b) throw kerneltuneError('MEASUREMENT_FAILED', `confirmation: the baseline ${configKey(baseline)} is not usable: ${b.failed.error}`)
  if ('failed' in c) throw kerneltuneError('MEASUREMENT_FAILED', `confirmation: the candidate ${configKey(candidate)} is not usable: ${c.failed.error}`)
  const timing = { warmup: opts.warmup, iterations: opts.iterations }
  return runConfirmation(async (which) => (await timeKernel(gpu, which === 'baseline' ? b : c, timing)).latencyMs.median, opts)
}

export interface TuneResult {
  kind: KernelKind
  problem: MatmulProblem
  /** The default configuration's result (absent when the default is invalid for the problem). */
  default?: KernelBenchResult
  /** The fastest correct configuration in selection (absent when none was correct). */
  best?: KernelBenchResult
  /**
   * default median / best median on the selection timings, the ones that picked the winner:
   * biased upward (winner's curse). Kept to show the bias; report `speedup` instead.
   */
  selectionSpeedup?: number
  /** The winner and the default re-timed afresh, interleaved (absent when the default won or was unusable, or confirmRounds is 0). */
  confirmation?: SpeedupConfirmation
  /** The confirmed speed-up (confirmation.speedup); 1 when the default itself won selection. */
  speedup?: number
  /**
   * What to use: 'tuned' only when the confirmation interval lies above 1 (or the default cannot
   * run); 'default' when the default won selection or the fresh interval does not exclude 1 or
   * says slower; absent when nothing was correct.
   */
  keep?: 'tuned' | 'default'
  tried: number
  correct: number
  /** Every configuration tried, in order. */
  results: KernelBenchResult[]
}

export async function tuneKernel(gpu: GpuContext, kind: KernelKind, problem: MatmulProblem, opts: TuneOptions): Promise<TuneResult> {
  const all = enumerateConfigs(kind, problem.format, problem, gpu.limits)
  const def = defaultConfig(kind, problem.format)
  const defValid = isValidConfig(kind, problem.format, def, problem, gpu.limits) === true
  const budget = Math.max(1, Math.floor(opts.maxConfigs))
  let picked = all
  if (all.length > budget) {
    const step = all.length / budget
    picked = Array.from({ length: budget }, (_, i) => all[Math.floor(i * step)]!)
  }
  const keys = new Set(picked.map(configKey))
  if (defValid && !keys.has(configKey(def))) picked = [def, ...picked.slice(0, budget - 1)]
  const results: KernelBenchResult[] = []
  for (const config of picked) {
    const r = await benchmarkKernel(gpu, kind, problem, config, opts)
    results.push(r)
    opts.onProgress?.(results.length, picked.length, r)
  }
  const correct = results.filter((r) => r.correct)
  const best = correct.reduce<KernelBenchResult | undefined>((a, r) => (!a || r.latencyMs.median < a.latencyMs.median ? r : a), undefined)
  const defResult = results.find((r) => configKey(r.config) === configKey(def))
  const out: TuneResult = { kind, problem, ...(defResult ? { default: defResult } : {}), ...(best ? { best } : {}), tried: results.length, correct: correct.length, results }
  if (!best) return out
  if (!defResult?.correct) return { ...out, keep: 'tuned' }
  out.selectionSpeedup = defResult.latencyMs.median / best.latencyMs.median
  if (configKey(best.config) === configKey(def)) return { ...out, speedup: 1, keep: 'default' }
  const rounds = opts.confirmRounds ?? DEFAULT_CONFIRM_ROUNDS
  if (rounds <= 0) return out
  const confirmation = await confirmSpeedup(gpu, kind, problem, def, best.config, {
    warmup: opts.warmup, iterations: opts.iterations, rounds, ...(opts.coldBytes ? { coldBytes: opts.coldBytes } : {}), ...(opts.confirmSeed !== undefined ? { seed: opts.confirmSeed } : {}),
  })
  return { ...out, confirmation, speedup: confirmation.speedup, keep: confirmation.verdict === 'faster' ? 'tuned' : 'default' }
}
