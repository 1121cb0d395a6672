/**
 * A small exhaustive-or-sampled search: every valid configuration when there are few, otherwise
 * an evenly spaced sample of them plus the default, each verified then timed; the fastest correct
 * one wins. Bigger searches belong to the searchers in the tuner packages.
 */
import { benchmarkKernel } from './bench.ts'
import type { GpuContext } from './gpu.ts'
import { configKey, defaultConfig, enumerateConfigs, isValidConfig } from './params.ts'
import type { KernelBenchResult, KernelKind, MatmulProblem, TimingOptions } from './types.ts'

export interface TuneOptions extends TimingOptions {
  /** Most configurations to try (the default is always among them when valid). */
  maxConfigs: number
  onProgress?: (done: number, total: number, last: KernelBenchResult) => void
}

export interface TuneResult {
  kind: KernelKind
  problem: MatmulProblem
  /** The default configuration's result (absent when the default is invalid for the problem). */
  default?: KernelBenchResult
  /** The fastest correct configuration's result (absent when none was correct). */
  best?: KernelBenchResult
  /** default median latency / best median latency. */
  speedup?: number
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
  return {
    kind,
    problem,
    ...(defResult ? { default: defResult } : {}),
    ...(best ? { best } : {}),
    ...(best && defResult?.correct ? { speedup: defResult.latencyMs.median / best.latencyMs.median } : {}),
    tried: results.length,
    correct: correct.length,
    results,
  }
}
