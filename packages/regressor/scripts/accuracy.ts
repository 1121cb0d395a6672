/**
 * The figures of the nested leave-one-chip-out evaluation (nested.ts) and the verdict on each of
 * issue 26's targets, shared by the training script (which writes them into the asset, the accuracy
 * report and both READMEs) and bench/regressor-accuracy.bench.ts (issue 38's targets since v3.3.0). Every figure is an outer-fold
 * figure: a chip predicted, with its interval, by a model whose variant, fit and interval never saw it.
 */
import { chipOf } from '../src/chips.ts'
import { prepare, type TrainingSample } from '../src/learned.ts'
import { backendOf, isLegacy } from '../src/physics-terms.ts'
import type { OuterResult } from './nested.ts'

/**
 * Issue 38's targets (leave-one-chip-out, nested): decode MAPE over chips ≤ 12%, no current discrete
 * GPU off by more than 25% in decode, prefill ≤ 25% over chips, and 90% intervals covering 85–95% at
 * a median width of at most 60% of the prediction in decode and 80% in prefill (issue 26's were 20%
 * prefill and < 50% decode width, with no prefill width).
 */
export const TARGETS = {
  decodeMape: 0.12, prefillMape: 0.25, currentGpuDecodeMax: 0.25, coverageLow: 0.85, coverageHigh: 0.95, maxDecodeMedianWidth: 0.6, maxPrefillMedianWidth: 0.8,
} as const

export interface RowSet { rows: number; mape: number; coverage: number; medianWidth: number }
export interface PhaseFigures { rows: RowSet; chipMean: { mape: number; coverage: number; medianWidth: number } }
export interface ChipFigures { chip: string; labels: string[]; backends: string[]; decode: RowSet; prefill: RowSet; variant: string }
export interface CurrentGpu { key: string; mape: number; rows: number; worstRow: number }
/** A current-build discrete GPU's rows of one phase: error, bias (mean of predicted ÷ measured − 1) and interval. */
export interface GpuPhase { key: string; phase: string; set: RowSet; bias: number }
/** One held-out row, as issue 38 quotes them (the RTX 4090's Llama 2 7B Q4_0 pp512). */
export interface NamedRow { what: string; measured: number; predicted: number; low: number; high: number }
export interface Target { name: string; figure: string; met: boolean; gap: string }
/** The figures of a group of chips: per phase over its rows and over its chips. */
export interface ChipGroupFigures { chips: string[]; decode: PhaseFigures; prefill: PhaseFigures }

/**
 * The chips whose outer folds served development (issue 34): the development loop
 * (`train-pretrained --only`) scored candidate changes on these folds before the reported run: a
 * class effect per build age on nvidia-gh100, rtx-5070-ti, rtx-5060-ti, nvidia-ad102, nvidia-ga100
 * and gb10; a per-vendor effect on the multi-vendor backends on nvidia-ad102, rtx-2080-ti, rtx-3060
 * and radeon-ai-pro-r9700; the kit's decode rows only on gb10, nvidia-gh100, nvidia-ga100 and
 * apple-m2-ultra (the regressor README's "Tried in the development loop"). None was kept, but a
 * change that was kept for not hurting these folds was judged on them, so their outer figures are
 * reported apart from the chips no development step scored.
 */
export const DEVELOPMENT_CHIPS: readonly string[] = [
  'nvidia-gh100', 'rtx-5070-ti', 'rtx-5060-ti', 'nvidia-ad102', 'nvidia-ga100', 'gb10', 'rtx-2080-ti', 'rtx-3060', 'radeon-ai-pro-r9700', 'apple-m2-ultra',
  // v3.4.0 (issue 38, second round): the kernel-figure corrections were scored on these folds with
  // `--only` (and the interval's support buckets on gb10, apple-m2-ultra, nvidia-gh100 and arc-pro-b70).
  'arc-pro-b70', 'p100-pcie-16gb', 'v100-pcie-16gb',
  // v3.5.0 (issue 38, third round): the units × clock binding figure and the per-backend MoE prefill
  // effect were scored with `--only` on the same eleven folds (rtx-3060 and radeon-ai-pro-r9700 have
  // no rows left: their only rows were measured on a Raspberry Pi host). Then three full runs: after the
  // first, the units × clock covariate was rescaled because this fold's prefill had gone from 5% to 100%
  // off, so its figures served development too.
  'radeon-8060s',
  // v3.6.0 (issue 38, fourth round): the MMQ rate's SM cap, batched decode on MMQ and the current-build
  // class effects were scored with `--only` on these twelve folds only (single-variant leave-one-chip-out
  // and three nested runs); the fourteen others were not scored before the reported run.
]

/**
 * Folds that are not out of sample for the design of this script version, with why. v3.2.0's
 * prefill kernel-family variant was written after the H200 kit run (commit 4923131, 15:40 UTC;
 * the variant e2203a5, 15:55 UTC), for the H100/H200 prefill gap that run showed, and it improved
 * that fold (prefill 47.8% → 43.9%): the nested selection chose it inside the fold, but the grid it
 * chose from was written looking at the fold's rows.
 */
const FIGURES_AFTER = 'the kernel facts of v3.4.0 (which units and kernels quantized prefill runs on, per backend) were read in llama.cpp\'s source because v3.3.0\'s held-out table showed this chip far off; the facts, not this fold\'s score, set the figures, but the fold is where they were looked for'
const AMD_SPLIT = 'v3.5.0 gives AMD\'s HBM parts (1 TB/s and up: the MI50/MI60 and MI100 here) a hardware class apart from its Radeon cards, written after reading these chips\' micro-batch rows (MI50 at a micro-batch of 1 reaching about a quarter of its bandwidth, which the Radeons borrowed); the fold was not scored before the reported run, but its rows were read'
export const NOT_OUT_OF_SAMPLE: Readonly<Record<string, { mark: string; why: string }>> = {
  'nvidia-gh100': {
    mark: "not out of sample for the kernel-family effect's design",
    why: "v3.2.0's prefill kernel-family effect (in every variant since) was written after the H200 kit run, for the H100/H200 prefill gap that run showed, and then improved this fold; v3.6.0's cap of CUDA's MMQ rate at a GeForce SM's rate per clock was written comparing the H100 kit's 8B Q4_0 pp512 with the issue's RTX 4090 figure (as v3.5.0's learned units × clock exponent it replaces), and its current-build class effects after reading the H100 kit's decode against the legacy A100 and H100 PCIe rows",
  },
  'arc-pro-b70': { mark: 'not out of sample for the kernel-figure corrections', why: FIGURES_AFTER },
  'amd-vega20': { mark: 'not out of sample for the AMD HBM class', why: AMD_SPLIT },
  mi100: { mark: 'not out of sample for the AMD HBM class', why: AMD_SPLIT },
  'p100-pcie-16gb': { mark: 'not out of sample for the kernel-figure corrections', why: FIGURES_AFTER },
  'v100-pcie-16gb': { mark: 'not out of sample for the kernel-figure corrections', why: FIGURES_AFTER },
}

export interface AccuracySummary {
  samples: number
  chips: number
  decode: PhaseFigures
  prefill: PhaseFigures
  byChip: ChipFigures[]
  /** Decode of current-build discrete GPUs, per chip and backend. */
  currentGpus: CurrentGpu[]
  /** Every current-build discrete GPU, per card, backend and phase, with the sign of its error (issue 38). */
  gpuPhases: GpuPhase[]
  /** The rows issue 38 names, as their outer fold predicted them. */
  named: NamedRow[]
  /** Rows whose held-out prediction extrapolated (an effect no training row had) and the rest. */
  extrapolating: { decode: RowSet; prefill: RowSet; chips: string[] }
  inside: { decode: RowSet; prefill: RowSet }
  /** The chips whose outer folds served development (DEVELOPMENT_CHIPS) and the rest. */
  development: ChipGroupFigures
  heldOutFromDevelopment: ChipGroupFigures
  targets: Target[]
  /** Held-out chips whose interval took the support buckets in their inner calibration (v3.4.0). */
  supportBuckets: string[]
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : Number.NaN
}
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN)
const pct = (x: number) => (Number.isNaN(x) ? '–' : `${(x * 100).toFixed(1)}%`)

/** The outer-fold figures and every target's verdict. */
export function summarize(samples: readonly TrainingSample[], r: OuterResult): AccuracySummary {
  const rows = prepare(samples)
  const ape = (i: number) => Math.abs(r.predicted[i]! - rows[i]!.measured) / rows[i]!.measured
  const inside = (i: number) => rows[i]!.measured >= r.low[i]! && rows[i]!.measured <= r.high[i]!
  const width = (i: number) => (r.high[i]! - r.low[i]!) / r.predicted[i]!
  const set = (idx: number[]): RowSet => ({ rows: idx.length, mape: mean(idx.map(ape)), coverage: mean(idx.map((i) => (inside(i) ? 1 : 0))), medianWidth: median(idx.map(width)) })
  const all = samples.map((_, i) => i)
  const phase = (p: string) => all.filter((i) => rows[i]!.query.phase === p)
  const chipOfRow = samples.map((s) => chipOf(s.group ?? ''))
  const byChip: ChipFigures[] = r.chips.map((chip) => {
    const idx = all.filter((i) => chipOfRow[i] === chip)
    return {
      chip, labels: [...new Set(idx.map((i) => samples[i]!.group ?? ''))], backends: [...new Set(idx.map((i) => backendOf(rows[i]!.query)))],
      decode: set(idx.filter((i) => rows[i]!.query.phase === 'decode')), prefill: set(idx.filter((i) => rows[i]!.query.phase === 'prefill')), variant: r.chosen[chip] ?? '',
    }
  })
  const figures = (p: 'decode' | 'prefill', keep: (chip: string) => boolean = () => true): PhaseFigures => {
    const chips = byChip.filter((c) => c[p].rows > 0 && keep(c.chip))
    return { rows: set(phase(p).filter((i) => keep(chipOfRow[i]!))), chipMean: { mape: mean(chips.map((c) => c[p].mape)), coverage: mean(chips.map((c) => c[p].coverage)), medianWidth: median(chips.map((c) => c[p].medianWidth)) } }
  }
  const group = (keep: (chip: string) => boolean): ChipGroupFigures => ({ chips: r.chips.filter(keep), decode: figures('decode', keep), prefill: figures('prefill', keep) })
  const isDev = (chip: string) => DEVELOPMENT_CHIPS.includes(chip)
  // A current-build discrete GPU: a GPU with memory of its own (not unified, not a CPU), current build.
  const currentDiscrete = (i: number) => { const q = rows[i]!.query; return q.phase === 'decode' && q.device !== 'cpu' && !q.unifiedMemory && !isLegacy(q) }
  const keys = new Map<string, number[]>()
  for (const i of all.filter(currentDiscrete)) {
    const k = `${samples[i]!.group} ${backendOf(rows[i]!.query)}`
    keys.set(k, [...(keys.get(k) ?? []), i])
  }
  const currentGpus = [...keys].map(([key, idx]) => ({ key, mape: mean(idx.map(ape)), rows: idx.length, worstRow: Math.max(...idx.map(ape)) }))
  const extrap = all.filter((i) => r.unseen[i]!.length > 0)
  const rest = all.filter((i) => r.unseen[i]!.length === 0)
  const decode = figures('decode')
  const prefill = figures('prefill')
  const phaseKeys = new Map<string, number[]>()
  for (const i of all) {
    const q = rows[i]!.query
    if (q.device === 'cpu' || q.unifiedMemory || isLegacy(q)) continue
    const k = `${samples[i]!.group} ${backendOf(q)}|${q.phase}`
    phaseKeys.set(k, [...(phaseKeys.get(k) ?? []), i])
  }
  const gpuPhases = [...phaseKeys].map(([k, idx]) => ({ key: k.split('|')[0]!, phase: k.split('|')[1]!, set: set(idx), bias: mean(idx.map((i) => r.predicted[i]! / rows[i]!.measured - 1)) }))
  // Issue 38's example: Llama 2 7B Q4_0, pp512, on a current CUDA build of the RTX 4090.
  const named = all.filter((i) => {
    const q = rows[i]!.query
    return samples[i]!.group === 'rtx-4090' && backendOf(q) === 'cuda' && !isLegacy(q) && q.phase === 'prefill' && q.quant === 'Q4_0' && Math.abs(q.paramsB - 6.74) < 0.05 && q.promptTokens === 512 && q.contextTokens === 0
  }).map((i) => ({ what: `rtx-4090 cuda, Llama 2 7B Q4_0, pp512, micro-batch ${rows[i]!.query.ubatch ?? 512}`, measured: rows[i]!.measured, predicted: r.predicted[i]!, low: r.low[i]!, high: r.high[i]! }))
  const worst = currentGpus.reduce((a, b) => (b.mape > a.mape ? b : a), { key: '–', mape: 0, rows: 0, worstRow: 0 })
  const over = currentGpus.filter((g) => g.mape > TARGETS.currentGpuDecodeMax)
  const covGap = (c: number) => (c < TARGETS.coverageLow ? `${((TARGETS.coverageLow - c) * 100).toFixed(1)} points under 85%` : c > TARGETS.coverageHigh ? `${((c - TARGETS.coverageHigh) * 100).toFixed(1)} points over 95%` : '')
  const mapeGap = (x: number, t: number) => (x > t ? `${((x - t) * 100).toFixed(1)} points over` : '')
  const inRange = (c: number) => c >= TARGETS.coverageLow && c <= TARGETS.coverageHigh
  const widthGap = (w: number, t: number) => (w > t ? `${((w - t) * 100).toFixed(1)} points over` : '')
  const withWidth = (c: number, w: number) => `${pct(c)} (median width ${pct(w)})`
  const targets: Target[] = [
    { name: `decode MAPE over chips ≤ ${pct(TARGETS.decodeMape)}`, figure: pct(decode.chipMean.mape), met: decode.chipMean.mape <= TARGETS.decodeMape, gap: mapeGap(decode.chipMean.mape, TARGETS.decodeMape) },
    { name: `prefill MAPE over chips ≤ ${pct(TARGETS.prefillMape)}`, figure: pct(prefill.chipMean.mape), met: prefill.chipMean.mape <= TARGETS.prefillMape, gap: mapeGap(prefill.chipMean.mape, TARGETS.prefillMape) },
    {
      name: `no current-build discrete GPU off by more than ${pct(TARGETS.currentGpuDecodeMax)} in decode (MAPE per card and backend)`, figure: `worst ${worst.key} ${pct(worst.mape)}`, met: over.length === 0,
      gap: over.length ? `${over.length} of ${currentGpus.length} over: ${over.map((g) => `${g.key} ${pct(g.mape)}`).join(', ')}` : '',
    },
    { name: '90% interval coverage 85–95%, decode (rows)', figure: withWidth(decode.rows.coverage, decode.rows.medianWidth), met: inRange(decode.rows.coverage), gap: covGap(decode.rows.coverage) },
    { name: '90% interval coverage 85–95%, prefill (rows)', figure: withWidth(prefill.rows.coverage, prefill.rows.medianWidth), met: inRange(prefill.rows.coverage), gap: covGap(prefill.rows.coverage) },
    { name: '90% interval coverage 85–95%, decode (mean over chips)', figure: withWidth(decode.chipMean.coverage, decode.chipMean.medianWidth), met: inRange(decode.chipMean.coverage), gap: covGap(decode.chipMean.coverage) },
    { name: '90% interval coverage 85–95%, prefill (mean over chips)', figure: withWidth(prefill.chipMean.coverage, prefill.chipMean.medianWidth), met: inRange(prefill.chipMean.coverage), gap: covGap(prefill.chipMean.coverage) },
    { name: `decode interval median width ≤ ${pct(TARGETS.maxDecodeMedianWidth)} of the prediction (rows)`, figure: pct(decode.rows.medianWidth), met: decode.rows.medianWidth <= TARGETS.maxDecodeMedianWidth, gap: widthGap(decode.rows.medianWidth, TARGETS.maxDecodeMedianWidth) },
    { name: `prefill interval median width ≤ ${pct(TARGETS.maxPrefillMedianWidth)} of the prediction (rows)`, figure: pct(prefill.rows.medianWidth), met: prefill.rows.medianWidth <= TARGETS.maxPrefillMedianWidth, gap: widthGap(prefill.rows.medianWidth, TARGETS.maxPrefillMedianWidth) },
  ]
  return {
    samples: samples.length, chips: r.chips.length, decode, prefill, byChip, currentGpus, gpuPhases, named, supportBuckets: r.supportBuckets ?? [],
    extrapolating: { decode: set(extrap.filter((i) => rows[i]!.query.phase === 'decode')), prefill: set(extrap.filter((i) => rows[i]!.query.phase === 'prefill')), chips: [...new Set(extrap.map((i) => chipOfRow[i]!))] },
    inside: { decode: set(rest.filter((i) => rows[i]!.query.phase === 'decode')), prefill: set(rest.filter((i) => rows[i]!.query.phase === 'prefill')) },
    development: group(isDev),
    heldOutFromDevelopment: group((c) => !isDev(c)),
    targets,
  }
}
