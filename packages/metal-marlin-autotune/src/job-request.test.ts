import { describe, expect, it } from 'vitest'
import { QUICK_JOB, autotuneJobFor } from './job-request.ts'

describe('autotuneJobFor', () => {
  it('should fill what a request leaves out with the full run\'s defaults, or the quick run\'s', () => {
    expect(autotuneJobFor({})).toEqual({ bits: [4, 8], batchSizes: [1, 4, 8, 16], hiddenSizes: [2048, 4096], warmup: 5, iterations: 20, guideVariantsOnly: false, mixed: false, intermediateMultiplier: 4, confirmRounds: 20 })
    expect(autotuneJobFor({ quick: true })).toMatchObject({ ...QUICK_JOB, guideVariantsOnly: true })
  })

  it('should let each given value win over both', () => {
    expect(autotuneJobFor({ quick: true, bits: [2], variants: 'all', confirmRounds: 0, mixed: true, hiddenSizes: [64] })).toMatchObject({ bits: [2], guideVariantsOnly: false, confirmRounds: 0, mixed: true, hiddenSizes: [64], warmup: 2 })
  })
})
