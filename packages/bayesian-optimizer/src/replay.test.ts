import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { parseReplayCsv, replaySearch } from './replay.ts'
import { STRATEGIES } from './searcher.ts'

const CSV = [
  'tile,layout,status,time_ms,time_ms_std,n_runs',
  '16,row,ok,4.0,0.2,4',
  '16,"col",ok,3.0,0.1,4',
  '32,row,CompilationFailedConfig,,,0',
  '32,col,ok,2.5,0.1,4',
  '64,row,ok,5.0,0.3,4',
  '64,col,RuntimeFailedConfig,,,0',
].join('\n')

describe('parseReplayCsv', () => {
  it('should take parameters from the columns before status, numbers as ordinal and text as categorical', () => {
    const t = parseReplayCsv(CSV)
    expect(t.params).toEqual([
      { name: 'tile', type: 'ordinal', values: [16, 32, 64] },
      { name: 'layout', type: 'categorical', values: ['col', 'row'] },
    ])
    expect(t.optimum).toBe(2.5)
    expect(t.rows.filter((r) => !r.ok).map((r) => r.status)).toEqual(['CompilationFailedConfig', 'RuntimeFailedConfig'])
    expect(t.rows[0]).toMatchObject({ config: { tile: 16, layout: 'row' }, ok: true, status: 'ok', value: 4 })
    expect(t.rows[0]!.variance).toBeCloseTo(0.01, 12)
  })

  it('should read a byte-order mark, CRLF line ends and a trailing blank line as plain LF', () => {
    expect(parseReplayCsv('\uFEFF' + CSV.replaceAll('\n', '\r\n') + '\r\n\r\n')).toEqual(parseReplayCsv(CSV))
  })

  it('should name the problem in a malformed file', () => {
    expect(() => parseReplayCsv('a,b\n1,2')).toThrow(/"status" column/)
    expect(() => parseReplayCsv(CSV, 'gflops')).toThrow(/objective column "gflops".*time_ms/)
    expect(() => parseReplayCsv('a,status,time_ms\n1,ok')).toThrow(/line 2 has 2 cells/)
    expect(() => parseReplayCsv('a,status,time_ms\n\n"1,ok,2')).toThrow(/line 3: unclosed quote/)
    expect(() => parseReplayCsv('a,status,time_ms\n1,failed,')).toThrow(/no row/)
  })
})

describe('replaySearch', () => {
  for (const strategy of STRATEGIES) {
    it(`should replay every configuration once, with failures as null values, and a running best (${strategy})`, () => {
      const r = replaySearch(parseReplayCsv(CSV), { strategy, seed: 3, budget: 100, bo: { initial: 2 }, tpe: { initial: 2 } })
      expect(r.trace).toHaveLength(6)
      expect(r.trace.map((e) => e.evaluation)).toEqual([1, 2, 3, 4, 5, 6])
      expect(new Set(r.trace.map((e) => JSON.stringify(e.params))).size).toBe(6)
      expect(r.trace.filter((e) => e.value === null)).toHaveLength(2)
      let best: number | null = null
      for (const e of r.trace) {
        if (e.value !== null) best = best === null ? e.value : Math.min(best, e.value)
        expect(e.best).toBe(best)
      }
      expect(r.best).toEqual({ tile: 32, layout: 'col', value: 2.5 })
    })
  }

  it('should stop at the budget, or once the target is reached', () => {
    const t = parseReplayCsv(CSV)
    expect(replaySearch(t, { strategy: 'random', seed: 1, budget: 3 }).trace).toHaveLength(3)
    const r = replaySearch(t, { strategy: 'random', seed: 1, budget: 6, target: 2.5 })
    expect(r.trace.at(-1)!.value).toBe(2.5)
  })
})

// Development spaces only: the dedispersion_* files are reserved for evaluation and never read here.
const DATA = join(import.meta.dirname ?? '.', '..', '..', '..', '..', 'shared', 'data', 'autotuning')
const files = existsSync(DATA) ? readdirSync(DATA).filter((f) => /^(gemm_|convolution_).*\.csv$/.test(f)) : []

describe.skipIf(requireOrSkip(files.length > 0, `data: no gemm_/convolution_ CSVs in ${DATA} (replay on development spaces)`))(`replay on the measured development spaces (skipped: ${DATA} is absent)`, () => {
  it('should parse every gemm and convolution CSV with the documented counts', () => {
    const counts = Object.fromEntries(files.map((f) => [f, parseReplayCsv(readFileSync(join(DATA, f), 'utf8')).rows.length]))
    for (const [f, n] of Object.entries(counts)) expect(n).toBe(f.includes('3060') ? 10000 : f.startsWith('gemm') ? 17956 : 4362)
  })

  it('should replay the RTX 3090 GEMM space with BO and return valid, distinct configurations', () => {
    const t = parseReplayCsv(readFileSync(join(DATA, 'gemm_clblast_xgemm_RTX_3090.csv'), 'utf8'))
    const r = replaySearch(t, { strategy: 'bo', seed: 0, budget: 25 })
    expect(r.trace).toHaveLength(25)
    expect(new Set(r.trace.map((e) => JSON.stringify(e.params))).size).toBe(25)
    expect(r.best!.value).toBeGreaterThanOrEqual(t.optimum)
    expect(r.best!.value).toBe(Math.min(...r.trace.map((e) => e.value ?? Infinity)))
  })
})
