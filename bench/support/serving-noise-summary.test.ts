import { describe, expect, it } from 'vitest'
import { classify, countAgreement, judgeAgainst, summarizeDesign, type Trial, type Verdict } from './serving-noise-summary.ts'

const v = (verdict: string, improvement: number): Verdict => ({ verdict, improvement, p: verdict === 'indistinguishable' ? 0.5 : 0.01, df: 10 })
const trial = (design: Trial['design'], perCombo: Record<string, Verdict>): Trial => ({
  design, trial: 1, loadAverage: 1, seconds: 10, calls: 5, repetitions: 25, launches: 5, baselineCv: 0.1, overBudget: false,
  decided: Object.values(perCombo).filter((x) => x.verdict === 'better' || x.verdict === 'worse').length, candidates: 3,
  falseWinner: false, aaVerdict: 'indistinguishable', winner: null, perCombo,
})
const AA = 'batch_size=4096'
const trials = [
  // sequential: one agreeing with both references, one contradicting the first and unconfirmed by the
  // second, one undecided (not counted), and its A/A arm called worse (not a decision here).
  trial('sequential', { 'threads=1': v('worse', -0.2), 'parallel=1': v('better', 0.1), 'flash_attn=off': v('indistinguishable', -0.01), [AA]: v('worse', -0.1) }),
  trial('interleaved', { 'threads=1': v('worse', -0.21), 'parallel=1': v('worse', -0.3), 'flash_attn=off': v('worse', -0.12) }),
]
const interleavedRef = { 'threads=1': v('worse', -0.2), 'parallel=1': v('worse', -0.32), 'flash_attn=off': v('worse', -0.14) }
// A second reference that decided only threads=1, and with the opposite sign on flash attention (undecided there).
const blocksRef = { 'threads=1': v('worse', -0.18), 'parallel=1': v('indistinguishable', -0.05), 'flash_attn=off': v('indistinguishable', 0.02) }

describe('classify', () => {
  it('should agree on the same sign, contradict on the opposite, and leave an undecided or missing reference unconfirmed', () => {
    expect(classify(v('worse', -0.2), v('worse', -0.1))).toBe('agreeing')
    expect(classify(v('better', 0.2), v('worse', -0.1))).toBe('contradicting')
    expect(classify(v('worse', -0.2), v('indistinguishable', -0.1))).toBe('unconfirmed')
    expect(classify(v('worse', -0.2), undefined)).toBe('unconfirmed')
  })
})

describe('countAgreement and judgeAgainst', () => {
  it('should count each design\'s decisions against a given reference, leaving out undecided ones and the A/A arm', () => {
    expect(countAgreement(trials, 'sequential', AA, interleavedRef)).toEqual({ agreeing: 1, contradicting: 1, unconfirmed: 0 })
    expect(countAgreement(trials, 'interleaved', AA, interleavedRef)).toEqual({ agreeing: 3, contradicting: 0, unconfirmed: 0 })
    expect(countAgreement(trials, 'interleaved', AA, blocksRef)).toEqual({ agreeing: 1, contradicting: 0, unconfirmed: 2 })
    expect(countAgreement(trials, 'sequential', AA, undefined)).toEqual({ agreeing: 0, contradicting: 0, unconfirmed: 2 })
  })

  it('should judge every design present against every reference, by name', () => {
    expect(judgeAgainst(trials, AA, { interleaved: interleavedRef, sequentialBlocks: blocksRef })).toEqual({
      sequential: { interleaved: { agreeing: 1, contradicting: 1, unconfirmed: 0 }, sequentialBlocks: { agreeing: 1, contradicting: 0, unconfirmed: 1 } },
      interleaved: { interleaved: { agreeing: 3, contradicting: 0, unconfirmed: 0 }, sequentialBlocks: { agreeing: 1, contradicting: 0, unconfirmed: 2 } },
    })
  })

  it('should give summarizeDesign the same counts as countAgreement', () => {
    expect(summarizeDesign(trials, 'sequential', AA, interleavedRef)).toMatchObject({ trials: 1, agreeing: 1, contradicting: 1, unconfirmed: 0 })
  })
})
