import { describe, expect, it } from 'vitest'
import { countBun, countDeno, countRuntimeSummary, countVitest, formatSummary, skipReasons } from './test-summary.mjs'

describe('countVitest', () => {
  it('should add up passed, failed, skipped and todo over every package turbo ran', () => {
    const text = [
      '@kerneltune/gguf:test:       Tests  1 failed | 8 passed (9)',
      '@kerneltune/store:test:       Tests  10 passed | 10 skipped (20)',
      '@kerneltune/cli:test:       Tests  2 passed | 1 todo (3)',
      '@kerneltune/cli:test:  Test Files  3 passed (3)',
    ].join('\n')
    expect(countVitest(text)).toEqual({ passed: 20, failed: 1, skipped: 11 })
  })
})

describe('countBun', () => {
  it('should read the pass, skip, todo and fail lines', () => {
    expect(countBun(' 12 pass\n 3 skip\n 1 todo\n 2 fail\n 40 expect() calls')).toEqual({ passed: 12, failed: 2, skipped: 4 })
  })
})

describe('countDeno', () => {
  it('should count steps as tests and add ignored describes to ignored steps', () => {
    expect(countDeno('ok | 1 passed (1 step) | 0 failed | 1 ignored (1 step) (118ms)')).toEqual({ passed: 1, failed: 0, skipped: 2 })
    expect(countDeno('FAILED | 5 passed (14 steps) | 1 failed (2 steps) (6s)')).toEqual({ passed: 14, failed: 2, skipped: 0 })
    expect(countDeno('ok | 3 passed | 0 failed | 2 ignored')).toEqual({ passed: 3, failed: 0, skipped: 2 })
  })
})

describe('countRuntimeSummary', () => {
  it('should read the line run-runtime-tests.mjs ends with', () => {
    expect(countRuntimeSummary('...\nbun: 100 passed, 1 failed, 7 skipped\n')).toEqual({ passed: 100, failed: 1, skipped: 7 })
  })
})

describe('skipReasons and formatSummary', () => {
  it('should list each reason once per stage with its count, then the total line last', () => {
    const text = 'stderr | x.test.ts\nkerneltune-skip: PostgreSQL: KERNELTUNE_TEST_PG_URL is unset\nkerneltune-skip: PostgreSQL: KERNELTUNE_TEST_PG_URL is unset\nkerneltune-skip: no data\n'
    const lines = formatSummary({ passed: 5, failed: 0, skipped: 3 }, new Map([['node', skipReasons(text)], ['bun', new Map()]]))
    expect(lines).toEqual([
      'skip reasons:',
      '  [node] PostgreSQL: KERNELTUNE_TEST_PG_URL is unset (x2)',
      '  [node] no data',
      'total: 5 passed, 0 failed, 3 skipped',
    ])
  })

  it('should say so when tests were skipped without a printed reason', () => {
    expect(formatSummary({ passed: 1, failed: 0, skipped: 1 }, new Map())[0]).toMatch(/without the kerneltune-skip helper/)
  })
})
