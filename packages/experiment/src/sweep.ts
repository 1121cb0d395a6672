/**
 * A sweep over an engine's settings with Tier 1 statistics: the default settings are measured
 * first, then every candidate in chunks of repetitions until the early-termination rule
 * (@kerneltune/stats shouldStopEarly) says its place against the default and the best so far is
 * settled, or the maximum is reached. Then `analyzeSweep` compares, gates and picks the winner,
 * and the winner is translated into the engine's command line. Runs on any measurement
 * backend; with a real one (not `simulated`) every number is a real measurement.
 *
 * @example
 * ```ts
 * const r = await runSweep({ backend, engine, candidates: [{ combo: { threads: '1' } }, { combo: { threads: '2' } }], model: 'm.gguf' })
 * console.log(r.winner?.argv.join(' ') ?? r.verdict)
 * ```
 */
import { KerneltuneError } from '@kerneltune/core/lite'
import type { Combo, EnginePlugin, MeasurementBackend, RepetitionMetrics } from '@kerneltune/core'
import { metricDirection } from '@kerneltune/stats'
import { analyzeSweep, metricSamples, type AnalyzeOptions, type MeasuredCombo, type SweepAnalysis, type SweepComboStats } from './sweep-analysis.ts'
import { measureWithEarlyStop } from './sequential.ts'
import { sequentialLoop } from './sequential-loop.ts'

export interface SweepProgress {
  /** 'baseline' for the default settings, 'combo' for a candidate. */
  readonly phase: 'baseline' | 'combo'
  /** 0 for the baseline, 1…total for candidates. */
  readonly index: number
  readonly total: number
  readonly combo: Combo
  /** Repetitions measured so far for this combo (after warm-ups). */
  readonly reps: number
  readonly done: boolean
}

export interface SweepOptions extends AnalyzeOptions {
  readonly backend: MeasurementBackend
  /** Candidates, e.g. from catalog enumeration; ones that run as the defaults are dropped. */
  readonly candidates: readonly { readonly combo: Combo; readonly hash?: string }[]
  /** The settings to beat; default `{}` (the engine with no flags). */
  readonly baseline?: Combo
  /** Model path for the winner's command line; default the placeholder. */
  readonly model?: string
  /** Warm-up repetitions before each combo's first chunk; default 1. */
  readonly warmups?: number
  /** Repetitions before early termination may stop a combo; default 3 (at least 2). */
  readonly minReps?: number
  /** Repetitions per combo at most (the baseline always gets this many); default 5. */
  readonly maxReps?: number
  /** Early termination on (default) or off. */
  readonly earlyStop?: boolean
  /** Interval width, relative to the value, below which a combo's estimate is tight; default 0.05. */
  readonly noiseFloor?: number
  /** Translates the winner into a command line (the engine's translator). */
  readonly engine: EnginePlugin
  /** Removes the engine's default values so equal combos compare equal (the engine package's withoutDefaults). */
  readonly withoutDefaults: (combo: Combo) => Combo
  readonly signal?: AbortSignal
  readonly onProgress?: (p: SweepProgress) => void
  /**
   * Results a previous, interrupted execution stored, by hash (the baseline's under its own):
   * kept as they are and not measured again, so a resumed sweep measures only what is missing.
   */
  readonly done?: ReadonlyMap<string, MeasuredCombo>
  /** Told once per combination measured here (the baseline first), before the next starts: where a caller stores progress. */
  readonly onMeasured?: (c: MeasuredCombo, isBaseline: boolean) => void | Promise<void>
}

export interface SweepResult extends Omit<SweepAnalysis, 'winner'> {
  readonly measured: true
  readonly simulated: boolean
  readonly device: string
  readonly backend: string
  readonly settings: { readonly warmups: number; readonly minReps: number; readonly maxReps: number; readonly earlyStop: boolean; readonly noiseFloor: number }
  /** The winner with its command line; absent when the defaults stay. */
  /** The winner and its command line (`argv`: the engine's translation of its combination). */
  readonly winner?: SweepComboStats & { readonly argv: readonly string[] }
  /** The command line to run: the winner's, or the defaults'. */
  readonly recommendedArgv: readonly string[]
  readonly notes: readonly string[]
}

/** FNV-1a 64 of the canonical JSON (sorted keys), as the catalog hashes combos. */
export function sweepComboHash(combo: Combo): string {
  const json = JSON.stringify(Object.fromEntries(Object.entries(combo).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))))
  let h = 0xcbf29ce484222325n
  for (const byte of new TextEncoder().encode(json)) h = BigInt.asUintN(64, (h ^ BigInt(byte)) * 0x100000001b3n)
  return h.toString(16).padStart(16, '0')
}

const values = metricSamples

export async function runSweep(options: SweepOptions): Promise<SweepResult> {
  const { backend, signal } = options
  const metric = options.metric ?? 'decodeTps'
  const warmups = options.warmups ?? 1
  const maxReps = options.maxReps ?? 5
  const minReps = Math.min(maxReps, Math.max(2, options.minReps ?? 3))
  const earlyStop = options.earlyStop ?? true
  const noiseFloor = options.noiseFloor ?? 0.05
  if (!(maxReps >= 2)) throw new KerneltuneError('INVALID_INPUT', `maxReps must be at least 2 (the comparison needs 2 samples), got ${maxReps}`)
  const baselineCombo = options.baseline ?? {}
  const strip = options.withoutDefaults
  // Combos that run the same as the defaults, or as each other, are measured once.
  const seen = new Set<string>([sweepComboHash(strip(baselineCombo))])
  const candidates = options.candidates.filter((c) => {
    const key = sweepComboHash(strip(c.combo))
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  const total = candidates.length
  const notes = new Set<string>()
  let device = ''
  let simulated = backend.simulated

  async function measure(combo: Combo, reps: number, warm: number): Promise<RepetitionMetrics[]> {
    if (signal?.aborted) throw new KerneltuneError('CANCELLED', 'the sweep was cancelled')
    const r = await backend.measure({ combo, repetitions: reps, warmups: warm, ...(signal ? { signal } : {}) })
    device = r.device
    simulated ||= r.simulated
    for (const n of r.notes ?? []) if (!/^model |threads \d+ >=/.test(n)) notes.add(n)
    return [...r.repetitions]
  }

  const higherIsBetter = metricDirection(metric) === 'higher'
  let best: { id: string; samples: number[]; score: number } | undefined
  // The sequential loop (sequential-loop.ts) with the sweep's step: early stopping against the defaults and the best so far.
  const { baseline, measured } = await sequentialLoop({
    baseline: { combo: baselineCombo, hash: sweepComboHash(baselineCombo) },
    candidates: candidates.map((c) => ({ combo: c.combo, hash: c.hash ?? sweepComboHash(c.combo) })),
    ...(options.done ? { done: options.done } : {}),
    step: async (c, baseReps, index) => {
      if (!baseReps) {
        options.onProgress?.({ phase: 'baseline', index: 0, total, combo: c.combo, reps: 0, done: false })
        return { reps: await measure(c.combo, maxReps, warmups) }
      }
      // Ranked against the default and the best so far: settled once more repetitions would not change the ranking.
      const rivals = [{ id: 'default', samples: values(baseReps, metric) }, ...(best && best.id !== c.hash ? [{ id: best.id, samples: best.samples }] : [])]
      const r = await measureWithEarlyStop({
        id: c.hash, measure: (n, warm) => measure(c.combo, n, warm), maxReps, firstChunk: minReps, step: 1, warmups, earlyStop,
        samples: (reps) => values(reps, metric), rivals, higherIsBetter, noiseFloor, minSamples: minReps, ...(signal ? { signal } : {}),
        onChunk: (reps) => options.onProgress?.({ phase: 'combo', index, total, combo: c.combo, reps: reps.length, done: false }),
      })
      return { reps: r.reps, ...(r.stoppedEarly ? { stoppedEarly: r.stoppedEarly } : {}) }
    },
    consider: (m, isBaseline) => {
      if (isBaseline) return
      const xs = values(m.reps, metric)
      if (m.error || xs.length === 0) return
      const score = (higherIsBetter ? 1 : -1) * (xs.reduce((a, b) => a + b, 0) / xs.length)
      if (!best || score > best.score) best = { id: m.hash, samples: xs, score }
    },
    onKept: (m, isBaseline, index) => options.onProgress?.({ phase: isBaseline ? 'baseline' : 'combo', index, total, combo: m.combo, reps: m.reps.length, done: true }),
    onMeasured: async (m, isBaseline, index) => {
      await options.onMeasured?.(m, isBaseline)
      options.onProgress?.({ phase: isBaseline ? 'baseline' : 'combo', index, total, combo: m.combo, reps: m.reps.length, done: true })
    },
  })

  const analysis = analyzeSweep(baseline, measured, options)
  const engine = options.engine
  const argvOf = async (combo: Combo): Promise<string[]> => {
    const t = await engine.translate(combo, options.model === undefined ? {} : { model: options.model })
    if (!t.ok) throw new KerneltuneError('INTERNAL', `${engine.name} could not translate the measured combo ${JSON.stringify(combo)}: ${t.reason}`)
    return [...t.argv]
  }
  const winner = analysis.winner ? { ...analysis.winner, argv: await argvOf(strip(analysis.winner.combo)) } : undefined
  const { winner: _analysisWinner, ...rest } = analysis
  return {
    ...rest,
    measured: true,
    simulated,
    device,
    backend: backend.name,
    settings: { warmups, minReps, maxReps, earlyStop, noiseFloor },
    ...(winner ? { winner } : {}),
    recommendedArgv: winner ? winner.argv : await argvOf(strip(baselineCombo)),
    notes: [...notes],
  }
}
