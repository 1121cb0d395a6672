import { describe, expect, it } from 'vitest'
import { DEVELOPMENT_CHIPS, NOT_OUT_OF_SAMPLE, summarize } from '../scripts/accuracy.ts'
import { renderAccuracy } from '../scripts/accuracy-report.ts'
import type { OuterResult } from '../scripts/nested.ts'
import type { TrainingSample } from './learned.ts'

// Two chips whose folds served development (the H100 die, GB10) and two that did not, one decode
// and one prefill row each, with held-out predictions whose errors and intervals are set by hand.
const labels = ['h100-sxm', 'gb10', 'rtx-3070', 'rtx-4080'] as const
const samples: TrainingSample[] = labels.flatMap((group) => (['decode', 'prefill'] as const).map((phase) => ({
  query: { paramsB: 8, quant: 'Q4_0', memBwGbs: 1000, tflops: 100, batch: 1, phase }, measuredTps: 100, group,
})))
// Errors: development rows 40% and 20% off, held-out rows 10% and 0% off.
const errors = [0.4, 0.2, 0.4, 0.2, 0.1, 0, 0.1, 0]
const predicted = errors.map((e) => 100 * (1 + e))
// Every interval is [0.5, 1.5] × the prediction (width 100%): it holds the measurement when the error is under 50%,
// except the held-out rows' decode intervals, which are set above the measurement (missed).
const outer: OuterResult = {
  predicted, unseen: samples.map(() => []),
  low: predicted.map((p, i) => (i >= 4 && i % 2 === 0 ? 101 : 0.5 * p)), high: predicted.map((p, i) => (i >= 4 && i % 2 === 0 ? 101 + p : 1.5 * p)),
  chosen: {}, chips: ['nvidia-gh100', 'gb10', 'rtx-3070', 'rtx-4080'], seconds: 0,
}

describe('accuracy report: the chips that served development apart (issue 34)', () => {
  const s = summarize(samples, outer)

  it('should put the development chips and the rest in two groups with their own figures', () => {
    expect(s.development.chips).toEqual(['nvidia-gh100', 'gb10'])
    expect(s.heldOutFromDevelopment.chips).toEqual(['rtx-3070', 'rtx-4080'])
    expect(s.development.decode.rows.mape).toBeCloseTo(0.4, 10)
    expect(s.development.prefill.rows.mape).toBeCloseTo(0.2, 10)
    expect(s.heldOutFromDevelopment.decode.rows.mape).toBeCloseTo(0.1, 10)
    expect(s.heldOutFromDevelopment.prefill.rows.mape).toBeCloseTo(0, 10)
    expect(s.development.decode.rows.coverage).toBe(1)
    expect(s.heldOutFromDevelopment.decode.rows.coverage).toBe(0)
    expect(s.heldOutFromDevelopment.prefill.rows.coverage).toBe(1)
    expect(s.development.prefill.rows.medianWidth).toBeCloseTo(1, 10)
    expect(s.development.decode.rows.rows + s.development.prefill.rows.rows).toBe(4)
  })

  it('should name the development chips, their rows, and the fold that is not out of sample', () => {
    const report = renderAccuracy({ header: 'h', summary: s, shipped: { label: 'x', scores: [] } })
    expect(report).toContain('scored candidate changes on them before the reported run: nvidia-gh100, gb10; 4 of 8 rows')
    expect(report).toContain('| development (2) | decode | 40.0% | 100.0% | 100.0% | 2 |')
    expect(report).toContain('| held out from development (2) | decode | 10.0% | 0.0% |')
    expect(report).toMatch(/\| nvidia-gh100 \| h100-sxm \|.*\| development; not out of sample for the kernel-family effect's design \|/)
    expect(report).toMatch(/\| rtx-3070 \| rtx-3070 \|.*\| held out \|/)
    expect(report).toContain(`The nvidia-gh100 fold is **${NOT_OUT_OF_SAMPLE['nvidia-gh100']!.mark}**`)
  })

  it('should list the fourteen chips of the development loop, and mark the held-out folds whose rows a design read', () => {
    expect(DEVELOPMENT_CHIPS).toHaveLength(14)
    // v3.5.0's AMD HBM class was written after reading the MI50's and MI100's rows; their folds were not scored.
    expect(Object.keys(NOT_OUT_OF_SAMPLE).filter((c) => !DEVELOPMENT_CHIPS.includes(c)).sort()).toEqual(['amd-vega20', 'mi100'])
  })
})
