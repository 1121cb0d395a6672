/**
 * The narrower: which dimensions did Tier 1 find insensitive? For each dimension it pairs the
 * measured combinations that differ in that dimension only (all other values equal) and compares
 * each pair (Yuen/Welch test, Cohen's d, relative difference of trimmed means). A dimension is
 * sensitive when at least half of its pairs differ significantly and the median relative
 * difference reaches the threshold; otherwise Tier 2 fixes it at its best level and says why.
 */
import type { Combo, RunCombo } from '@kerneltune/core'
import { compareToBaseline, trimmedMean } from '@kerneltune/stats'
import { higherIsBetter, samplesOf } from '../run/metrics.ts'
import type { TargetMetric } from '../request.ts'

export interface DimensionSensitivity {
  /** Levels seen among the measured combinations. */
  levels: string[]
  /** Pairs of combos that differ in this dimension only. */
  pairs: number
  significantPairs: number
  medianRelativeEffect: number
  maxRelativeEffect: number
  minPValue: number | null
  maxAbsCohensD: number | null
  /** Mean value of the metric over the combos at each level. */
  levelMeans: Record<string, number>
  /** The level with the best mean. */
  bestLevel: string
  sensitive: boolean
  reason: string
}

const median = (xs: number[]) => {
  if (!xs.length) return 0
  const s = [...xs].sort((a, b) => a - b)
  const h = s.length >> 1
  return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2
}

export function dimensionSensitivity(measured: readonly RunCombo[], metric: string, baseline?: Combo, threshold = 0.02, alpha = 0.05): Record<string, DimensionSensitivity> {
  const m = metric as TargetMetric
  const dims = [...new Set(measured.flatMap((c) => Object.keys(c.combo)))].sort()
  const out: Record<string, DimensionSensitivity> = {}
  const sign = higherIsBetter(m) ? 1 : -1
  for (const dim of dims) {
    const levels = [...new Set(measured.map((c) => c.combo[dim]).filter((v): v is string => v !== undefined))]
    const levelMeans: Record<string, number> = {}
    for (const l of levels) {
      const vals = measured.filter((c) => c.combo[dim] === l).map((c) => trimmedMean(samplesOf(c.repetitions, m).values))
      levelMeans[l] = vals.reduce((a, b) => a + b, 0) / vals.length
    }
    const bestLevel = [...levels].sort((a, b) => sign * (levelMeans[b]! - levelMeans[a]!))[0] ?? ''
    if (levels.length < 2) {
      out[dim] = { levels, pairs: 0, significantPairs: 0, medianRelativeEffect: 0, maxRelativeEffect: 0, minPValue: null, maxAbsCohensD: null, levelMeans, bestLevel, sensitive: false, reason: 'one level only: nothing to compare' }
      continue
    }
    // Group by the other dimensions' values; compare every level to the group's reference level.
    const groups = new Map<string, RunCombo[]>()
    for (const c of measured) {
      const key = JSON.stringify(Object.entries(c.combo).filter(([k]) => k !== dim).sort())
      groups.set(key, [...(groups.get(key) ?? []), c])
    }
    const effects: number[] = []
    let significant = 0
    let minP: number | null = null
    let maxD: number | null = null
    for (const g of groups.values()) {
      if (g.length < 2) continue
      const ref = g.find((c) => c.combo[dim] === baseline?.[dim]) ?? g[0]!
      for (const c of g) {
        if (c === ref) continue
        const a = samplesOf(c.repetitions, m).values
        const b = samplesOf(ref.repetitions, m).values
        if (a.length < 2 || b.length < 2) continue
        const cmp = compareToBaseline(a, b, { higherIsBetter: higherIsBetter(m), alpha })
        const rel = Number.isFinite(cmp.relativeDelta) ? Math.abs(cmp.relativeDelta) : 0
        effects.push(rel)
        if (cmp.verdict !== 'indistinguishable') significant++
        const p = cmp.welch.pValue
        if (Number.isFinite(p)) minP = minP === null ? p : Math.min(minP, p)
        const d = Math.abs(cmp.cohensD)
        if (Number.isFinite(d)) maxD = maxD === null ? d : Math.max(maxD, d)
      }
    }
    const med = median(effects)
    const pairs = effects.length
    const sensitive = pairs === 0 ? true : significant * 2 >= pairs && med >= threshold
    const reason = pairs === 0
      ? 'no pair of combos differs in this dimension only: kept, since Tier 1 gives no evidence either way'
      : `${significant} of ${pairs} matched pairs differ significantly (alpha ${alpha}); median relative difference ${(med * 100).toFixed(2)}% ${med >= threshold ? '≥' : '<'} ${(threshold * 100).toFixed(2)}%`
    out[dim] = { levels, pairs, significantPairs: significant, medianRelativeEffect: med, maxRelativeEffect: effects.length ? Math.max(...effects) : 0, minPValue: minP, maxAbsCohensD: maxD, levelMeans, bestLevel, sensitive, reason }
  }
  return out
}

export interface Narrowing {
  /** Dimensions Tier 2 searches, with their levels. */
  kept: Record<string, string[]>
  /** Dimensions fixed at a level, with the evidence. */
  dropped: Record<string, { fixedAt: string; evidence: DimensionSensitivity }>
  threshold: number
}

/** Splits the run's dimensions into the ones to search and the ones to fix. */
export function narrow(measured: readonly RunCombo[], metric: string, baseline: Combo | undefined, threshold: number): Narrowing {
  const sens = dimensionSensitivity(measured, metric, baseline, threshold)
  const kept: Narrowing['kept'] = {}
  const dropped: Narrowing['dropped'] = {}
  for (const [dim, s] of Object.entries(sens)) {
    if (s.sensitive && s.levels.length > 1) kept[dim] = s.levels
    else dropped[dim] = { fixedAt: s.bestLevel, evidence: s }
  }
  return { kept, dropped, threshold }
}
