import { describe, expect, it } from 'vitest'
import { outerSplits, select } from '../scripts/nested.ts'
import { chipGroups, chipOf, chooseWeighting, conformalQuantiles, intervalState, prepare, weightedConformalQuantiles, type HeldOutRow, type TrainingSample } from './index.ts'

describe('chipOf (issue 26: leave-one-chip-out holds out a die, not a label)', () => {
  it('should put the CPU and GPU rows of one Apple chip and its core-count variants on one chip', () => {
    expect(new Set(['m1-max', 'm1-max-24c', 'm1-max-24c-cpu', 'm1-max-cpu'].map(chipOf))).toEqual(new Set(['apple-m1-max']))
    expect(chipOf('m3-cpu')).toBe(chipOf('m3'))
    expect(chipOf('m1-7c')).toBe(chipOf('m1'))
    expect(chipOf('m1-ultra')).not.toBe(chipOf('m1-max'))
  })

  it('should put the power limits and memory options of one card on one chip, and keep other dies apart', () => {
    expect(chipOf('a100-pcie-80gb')).toBe(chipOf('a100-sxm-80gb'))
    expect(chipOf('h100-pcie')).toBe(chipOf('h100-sxm'))
    expect(chipOf('rtx-4090')).toBe(chipOf('l40s'))
    expect(chipOf('rtx-4090')).not.toBe(chipOf('rtx-4080'))
    expect(chipOf('rtx-5070-ti')).toBe('rtx-5070-ti')
    expect(chipGroups(['m3', 'gb10', 'm3-cpu'])).toEqual(new Map([['apple-m3', ['m3', 'm3-cpu']], ['gb10', ['gb10']]]))
  })
})

// Synthetic rows: decode and prefill of three model sizes on six labels that make four chips.
const LABELS: [string, number, number][] = [['m1-max', 400, 10.4], ['m1-max-24c-cpu', 200, 0.82], ['rtx-3090', 936, 142], ['a100-sxm-80gb', 2039, 312], ['a100-pcie-80gb', 1935, 312], ['gb10', 273, 125]]
function samples(): TrainingSample[] {
  const out: TrainingSample[] = []
  for (const [group, bw, tflops] of LABELS) {
    for (const paramsB of [1, 7, 13]) {
      const base = { paramsB, quant: 'Q4_0', memBwGbs: bw, tflops, vendor: group.startsWith('m') ? 'apple' as const : 'nvidia' as const, ...(group.endsWith('-cpu') ? { device: 'cpu' as const } : {}) }
      out.push({ query: { ...base, phase: 'decode' }, measuredTps: (0.6 * bw) / (paramsB * 0.56), group })
      out.push({ query: { ...base, phase: 'prefill', promptTokens: 512 }, measuredTps: (0.4 * tflops * 1e12) / (2 * paramsB * 1e9), group })
    }
  }
  return out
}

describe('nested leave-one-chip-out', () => {
  it('should hold out every label of a chip together and never train on its siblings', () => {
    const s = samples()
    const splits = outerSplits(s)
    expect(splits.map((x) => x.chip).sort()).toEqual(['apple-m1-max', 'gb10', 'nvidia-ga100', 'nvidia-ga102'])
    for (const { chip, train, test } of splits) {
      expect(test.every((i) => chipOf(s[i]!.group!) === chip)).toBe(true)
      expect(train.some((i) => chipOf(s[i]!.group!) === chip)).toBe(false)
      expect(train.length + test.length).toBe(s.length)
    }
    const a100 = splits.find((x) => x.chip === 'nvidia-ga100')!
    expect(new Set(a100.test.map((i) => s[i]!.group))).toEqual(new Set(['a100-sxm-80gb', 'a100-pcie-80gb']))
  })

  it('should choose the variant and calibrate the interval from the training chips only', () => {
    const s = samples()
    const { chip, train } = outerSplits(s).find((x) => x.chip === 'gb10')!
    const before = select(s, prepare(s), train)
    // Whatever the held-out chip measured, the inner procedure of its fold gives the same answer.
    const changed = s.map((x) => (chipOf(x.group!) === chip ? { ...x, measuredTps: x.measuredTps * 7 } : x))
    const after = select(changed, prepare(changed), train)
    expect(after).toEqual(before)
    expect(before.interval.decode.count).toBe(train.filter((i) => s[i]!.query.phase === 'decode').length)
  })
})

describe('intervals calibrated for unseen chips (issue 26)', () => {
  it('should give the unweighted conformal ranks with unit weights', () => {
    const r = Array.from({ length: 57 }, (_, i) => Math.sin(i * 1.7))
    expect(weightedConformalQuantiles(r, r.map(() => 1))).toEqual(conformalQuantiles(r))
  })

  it('should let each chip weigh the same when chips, not rows, are exchangeable', () => {
    // One chip with 200 small residuals, ten chips with one large residual each.
    const rows: HeldOutRow[] = [
      ...Array.from({ length: 200 }, (_, i) => ({ group: 'big', cls: 'x', regime: 'decode', phase: 'decode' as const, measured: 100 * Math.exp(0.02 * Math.sin(i)), predicted: 100, bound: 1e9 })),
      ...Array.from({ length: 10 }, (_, i) => ({ group: `c${i}`, cls: 'x', regime: 'decode', phase: 'decode' as const, measured: 100 * Math.exp(i % 2 ? 0.5 : -0.5), predicted: 100, bound: 1e9 })),
    ]
    const byRows = intervalState(rows, 0.9, { decode: 0, prefill: 0 })
    const byChips = intervalState(rows, 0.9, { decode: 1, prefill: 1 })
    expect(byChips.decode.high - byChips.decode.low).toBeGreaterThan(5 * (byRows.decode.high - byRows.decode.low))
    // Held out one chip at a time, the row-weighted interval misses every small chip; the choice sees it.
    expect(chooseWeighting(rows).decode).toBeGreaterThan(0)
  })
})
