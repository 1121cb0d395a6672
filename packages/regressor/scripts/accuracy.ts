/**
 * Leave-one-hardware-out accuracy of the candidate throughput models on the public measurements,
 * shared by the training script (which ships the winner) and bench/regressor-accuracy.bench.ts.
 * Every chip is predicted by a model trained without any of its rows; MAPE is reported per phase,
 * over rows (dominated by the two chips with batch sweeps, GB10 and M2 Ultra) and averaged over
 * chips (each unseen chip counts once). The winner's held-out residuals give the 90% interval, whose
 * coverage is measured the same way (each chip's interval from the other chips' residuals).
 */
import { leaveOneGroupOut } from '../src/evaluate.ts'
import { coverageOfRows, heldOutCoverage, heldOutIntervals, intervalRegime, type CoverageReport, type HeldOutRow } from '../src/intervals.ts'
import { backendOf, hardwareClass } from '../src/physics-terms.ts'
import { mapeOf, prepare, type TrainOptions, type TrainingSample } from '../src/learned.ts'

export interface PhaseScores { decode: number; prefill: number; all: number; decodeRows: number; prefillRows: number }
export interface ModelScores {
  label: string
  options: TrainOptions
  overall: PhaseScores
  /** Mean over chips of each chip's MAPE (every unseen chip weighs the same). */
  chipMean: { decode: number; prefill: number }
  byHardware: Record<string, PhaseScores>
  /** Held-out (clamped) predictions, in sample order. */
  predictions: number[]
  seconds: number
}

export const CANDIDATES: { label: string; options: TrainOptions }[] = [
  { label: 'ridge (v1.1 features)', options: { kind: 'linear', lambda: 1, name: 'pretrained-ridge' } },
  { label: 'physics (terms per class, vendor, format)', options: { kind: 'physics', name: 'pretrained-physics', physics: { lambda: 3, priorPrecision: 0.1, groupBalance: 0.5 } } },
]
export const FOREST = { label: 'random forest (30 trees, depth 8)', options: { kind: 'forest', forest: { nEstimators: 30, maxDepth: 8, minNumSamples: 3, maxFeatures: 0.8, seed: 42 } } as TrainOptions }

function scores(samples: readonly TrainingSample[], idx: readonly number[], pred: readonly number[]): PhaseScores {
  const pick = (phase: string) => idx.filter((i) => (samples[i]!.query.phase ?? 'decode') === phase)
  const m = (ii: number[]) => (ii.length ? mapeOf(ii.map((i) => pred[i]!), ii.map((i) => samples[i]!.measuredTps)) : Number.NaN)
  const d = pick('decode')
  const p = pick('prefill')
  return { decode: m(d), prefill: m(p), all: m([...idx]), decodeRows: d.length, prefillRows: p.length }
}

const meanOf = (xs: number[]) => {
  const ok = xs.filter((x) => !Number.isNaN(x))
  return ok.reduce((a, b) => a + b, 0) / Math.max(ok.length, 1)
}

export function evaluateModel(samples: readonly TrainingSample[], label: string, options: TrainOptions): ModelScores {
  const t0 = Date.now()
  const r = leaveOneGroupOut(samples, options)
  const all = samples.map((_, i) => i)
  const byHardware: Record<string, PhaseScores> = {}
  for (const g of Object.keys(r.byGroup)) byHardware[g] = scores(samples, all.filter((i) => samples[i]!.group === g), r.predictions)
  const chips = Object.values(byHardware)
  return {
    label, options, overall: scores(samples, all, r.predictions), byHardware, predictions: r.predictions, seconds: (Date.now() - t0) / 1000,
    chipMean: { decode: meanOf(chips.map((c) => c.decode)), prefill: meanOf(chips.map((c) => c.prefill)) },
  }
}

/**
 * The winner: the lowest chip-averaged MAPE over both phases. Chip-averaged, because the question
 * is "how far off on a chip it never saw", and the row-weighted figure is mostly two chips.
 */
export function pickWinner(models: readonly ModelScores[]): ModelScores {
  const score = (m: ModelScores) => (m.chipMean.decode + m.chipMean.prefill) / 2
  return [...models].sort((a, b) => score(a) - score(b))[0]!
}

/** The held-out rows of a model's predictions, for interval calibration and coverage. */
export function heldOutRows(samples: readonly TrainingSample[], predictions: readonly number[]): HeldOutRow[] {
  const rows = prepare(samples)
  return samples.map((s, i) => ({ group: s.group ?? '', cls: hardwareClass(rows[i]!.query), regime: intervalRegime(rows[i]!.query), phase: rows[i]!.query.phase, measured: s.measuredTps, predicted: predictions[i]!, bound: rows[i]!.bound }))
}

export function coverageOf(samples: readonly TrainingSample[], predictions: readonly number[]) {
  return heldOutCoverage(heldOutRows(samples, predictions))
}

/** Scores of one subset of held-out rows, per phase: MAPE over rows and over chips, interval coverage. */
export interface SubsetScores {
  chips: string[]
  decode: { mapeRows: number; mapeChips: number; interval: CoverageReport; chipCoverage: number }
  prefill: { mapeRows: number; mapeChips: number; interval: CoverageReport; chipCoverage: number }
}

/**
 * The held-out scores split by whether the data measures a row's backend and build on another chip
 * too. A held-out GB10 leaves no current-build CUDA row in training and a held-out M2 Ultra no
 * current-build Metal row, so their current-build rows ask the model to extrapolate to kernels it never
 * saw; every other row has a sibling chip of the same backend and build among the training chips.
 */
export function supportSplit(samples: readonly TrainingSample[], predictions: readonly number[]): { kinds: Record<string, string[]>; shared: SubsetScores; alone: SubsetScores } {
  const rows = prepare(samples)
  const kind = (i: number) => `${backendOf(rows[i]!.query)} ${rows[i]!.query.engineEra ?? 'current'}`
  const kinds: Record<string, string[]> = {}
  samples.forEach((s, i) => {
    const list = (kinds[kind(i)] ??= [])
    if (!list.includes(s.group ?? '')) list.push(s.group ?? '')
  })
  const iv = heldOutIntervals(heldOutRows(samples, predictions))
  const ape = (i: number) => Math.abs(predictions[i]! - samples[i]!.measuredTps) / samples[i]!.measuredTps
  const subset = (alone: boolean): SubsetScores => {
    const idx = samples.map((_, i) => i).filter((i) => (kinds[kind(i)]!.length === 1) === alone)
    const phase = (p: string) => {
      const ii = idx.filter((i) => rows[i]!.query.phase === p)
      const chips = [...new Set(ii.map((i) => samples[i]!.group ?? ''))]
      const of = (g: string) => ii.filter((i) => (samples[i]!.group ?? '') === g)
      return {
        mapeRows: meanOf(ii.map(ape)), mapeChips: meanOf(chips.map((g) => meanOf(of(g).map(ape)))),
        interval: coverageOfRows(ii, iv), chipCoverage: meanOf(chips.map((g) => coverageOfRows(of(g), iv).coverage)),
      }
    }
    return { chips: [...new Set(idx.map((i) => samples[i]!.group ?? ''))], decode: phase('decode'), prefill: phase('prefill') }
  }
  return { kinds, shared: subset(false), alone: subset(true) }
}

export const TARGETS = { decodeMape: 0.12, prefillMape: 0.2, coverageLow: 0.85, coverageHigh: 0.95, maxMedianRelativeWidth: 0.5 } as const

/** Whether an interval meets issue 18's target: coverage within 85–95% and median relative width under 50%. */
export const intervalMeetsTarget = (c: { coverage: number; medianRelativeWidth: number }): boolean =>
  c.coverage >= TARGETS.coverageLow && c.coverage <= TARGETS.coverageHigh && c.medianRelativeWidth < TARGETS.maxMedianRelativeWidth
