import { describe, expect, it } from 'vitest'
import { DEFAULT_SIZES, parseProblemSize } from './problem-size.ts'

describe('parseProblemSize', () => {
  it('should read MxNxK and name the flag when the text is wrong', () => {
    expect(parseProblemSize('1x4096x4096', '--gemv-size')).toEqual({ m: 1, n: 4096, k: 4096 })
    expect(() => parseProblemSize('1x2', '--gemv-size')).toThrow('--gemv-size expects MxNxK (e.g. 1x4096x4096), got "1x2"')
    expect(() => parseProblemSize('1x2x33', '--gemm-size')).toThrow(/^--gemm-size: sizes must be positive and K a multiple of 32/)
    expect(() => parseProblemSize('0x2x32', '--gemm-size')).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }))
  })

  it('should keep the default sizes valid problems', () => {
    for (const s of Object.values(DEFAULT_SIZES)) expect(parseProblemSize(`${s.m}x${s.n}x${s.k}`, 'default')).toEqual(s)
  })
})
