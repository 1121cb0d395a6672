import { describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LearnedModel, QUERY_FEATURE_NAMES, crossValidate, parseRows } from '@kerneltune/regressor'
import { runMain } from '../cli/testing.ts'
import { syntheticRows } from './train/test-rows.ts'

const run = (args: string[], cwd = '/') => runMain(args, cwd)

function toCsv(rows: Record<string, unknown>[]): string {
  const keys = Object.keys(rows[0]!)
  return [keys.join(','), ...rows.map((r) => keys.map((k) => String(r[k])).join(','))].join('\n') + '\n'
}

function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'kt-train-'))
  return fn(dir).finally(() => rmSync(dir, { recursive: true, force: true }))
}

describe('kerneltune train', () => {
  it('should train a ridge model from CSV, report held-out MAPE, and be loadable by predict --model-file', () => withDir(async (dir) => {
    const rows = syntheticRows()
    writeFileSync(join(dir, 'runs.csv'), toCsv(rows))
    const r = await run(['train', '--data', 'runs.csv', '--model', 'linear', '--out', 'model.json', '--json'], dir)
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j.data).toMatchObject({ format: 'csv', rows: 30, skipped: [] })
    expect(j.cv.folds).toBe(5)
    expect(j.cv.mape).toBeGreaterThan(0)
    expect(j.cv.mape).toBeLessThan(0.1)
    expect(j.trainMape).toBeLessThanOrEqual(j.cv.mape)
    expect(j.byHardware).toHaveLength(3)
    expect(j.importance).toHaveLength(QUERY_FEATURE_NAMES.length)
    // The importance list is sorted, largest first.
    expect(j.importance[0][1]).toBeGreaterThanOrEqual(j.importance[1][1])
    const saved = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'))
    expect(saved.mape).toBeCloseTo(j.cv.mape, 12)
    // No temp file is left beside the model.
    expect(readdirSync(dir).sort()).toEqual(['model.json', 'runs.csv'])

    const p = await run(['predict', '--params-b', '8', '--quant', 'Q4_K', '--mem-bw-gbs', '1008', '--tflops', '330', '--model-file', 'model.json', '--json'], dir)
    expect(p.code).toBe(0)
    const pj = JSON.parse(p.out)
    expect(pj.predictedTps).toBeCloseTo(LearnedModel.fromJSON(saved).predict(pj.query).predictedTps, 9)
    const truth = rows.find((x) => x.paramsB === 8 && x.memBwGbs === 1008 && x.batch === 1)!.measuredTps
    expect(Math.abs(pj.predictedTps - truth) / truth).toBeLessThan(0.1)
  }))

  it('should assign folds exactly as the regressor crossValidate does', () => withDir(async (dir) => {
    const rows = syntheticRows()
    writeFileSync(join(dir, 'runs.jsonl'), rows.map((x) => JSON.stringify(x)).join('\n'))
    const r = await run(['train', '--data', 'runs.jsonl', '--out', 'm.json', '--folds', '3', '--seed', '9', '--json'], dir)
    expect(r.code).toBe(0)
    const cv = crossValidate(rows.map(({ measuredTps, ...query }) => ({ query, measuredTps })), { kind: 'linear', k: 3, seed: 9 })
    expect(JSON.parse(r.out).cv.mape).toBeCloseTo(cv.mape, 12)
  }))

  it('should train a small forest with progress on stderr, and predict should load it', () => withDir(async (dir) => {
    writeFileSync(join(dir, 'runs.jsonl'), syntheticRows().map((x) => JSON.stringify(x)).join('\n'))
    const r = await run(['train', '--data', 'runs.jsonl', '--model', 'rf', '--trees', '5', '--folds', '3', '--out', 'rf.json'], dir)
    expect(r.code).toBe(0)
    expect(r.out).toContain('3-fold CV MAPE')
    expect(r.out).toContain('random forest (5 trees)')
    expect(r.err).toContain('training forest')
    expect(JSON.parse(readFileSync(join(dir, 'rf.json'), 'utf8')).kind).toBe('forest')
    const p = await run(['predict', '--params-b', '7', '--mem-bw-gbs', '936', '--tflops', '71', '--model-file', 'rf.json', '--json'], dir)
    expect(p.code).toBe(0)
    expect(JSON.parse(p.out).model).toBe('forest')
  }))

  it('should list every bad row with its line and exit 2, or skip them with --skip-bad', () => withDir(async (dir) => {
    const good = syntheticRows().map((x) => JSON.stringify(x))
    const lines = [good[0], '{"paramB":7,"memBwGbs":100,"tflops":10,"measuredTps":5}', ...good.slice(1, 12), 'oops', '{"paramsB":7,"hardware":"no-such-gpu","measuredTps":5}', '{"paramsB":7,"memBwGbs":100,"tflops":10}', ...good.slice(12)]
    writeFileSync(join(dir, 'runs.jsonl'), lines.join('\n') + '\n')
    const bad = await run(['train', '--data', 'runs.jsonl', '--out', 'm.json'], dir)
    expect(bad.code).toBe(2)
    for (const line of [2, 14, 15, 16]) expect(bad.err).toContain(`runs.jsonl:${line}:`)
    expect(bad.err).toContain('paramB')
    expect(bad.err).toContain('no-such-gpu')
    expect(readdirSync(dir)).not.toContain('m.json')
    const ok = await run(['train', '--data', 'runs.jsonl', '--out', 'm.json', '--skip-bad', '--json'], dir)
    expect(ok.code).toBe(0)
    const j = JSON.parse(ok.out)
    expect(j.data.rows).toBe(30)
    expect(j.data.skipped.map((p: { line: number }) => p.line)).toEqual([2, 14, 15, 16])
    expect(ok.err).toContain('skipped runs.jsonl:14')
  }))

  it('should exit 2 on missing flags or too few rows, and 3 when the quality gate fails', () => withDir(async (dir) => {
    const rows = syntheticRows()
    writeFileSync(join(dir, 'few.csv'), toCsv(rows.slice(0, 8)))
    writeFileSync(join(dir, 'runs.csv'), toCsv(rows))
    expect((await run(['train', '--out', 'm.json'], dir)).code).toBe(2)
    expect((await run(['train', '--data', 'runs.csv'], dir)).code).toBe(2)
    expect((await run(['train', '--data', 'missing.csv', '--out', 'm.json'], dir)).code).toBe(2)
    const few = await run(['train', '--data', 'few.csv', '--out', 'm.json'], dir)
    expect(few.code).toBe(2)
    expect(few.err).toContain('8 usable row(s)')
    const gated = await run(['train', '--data', 'runs.csv', '--out', 'm.json', '--max-cv-mape', '0.001', '--json'], dir)
    expect(gated.code).toBe(3)
    expect(JSON.parse(gated.out).gate.passed).toBe(false)
    expect((await run(['train', '--data', 'runs.csv', '--out', 'm.json', '--max-cv-mape', '50'], dir)).code).toBe(0)
    expect((await run(['train', '--help'], dir)).out).toContain('--skip-bad')
  }))
})

describe('measurement rows', () => {
  it('should parse quoted CSV cells, booleans, presets and the tokens_per_s alias', () => {
    const quoted = parseRows('\uFEFFparamsB,quant,memBwGbs,tflops,measuredTps\r\n7,"Q4_K_M",1000,"1,5",3\r\n"open,1,1,1,1\r\n8, Q8_0 ,1000,2,"4"\r\n', 'csv')
    expect(quoted.rows.map((r) => [r.line, r.measuredTps])).toEqual([[4, 4]])
    expect(quoted.problems).toEqual([{ line: 2, message: expect.stringContaining('tflops') }, { line: 3, message: 'unclosed quote' }])
    const r = parseRows('# comment\nparamsB,quant,hardware,unifiedMemory,tokens_per_s\n7,"Q4_K_M",rtx-4090,no,120\n8,Q8_0,,true,50\n', 'csv')
    expect(r.rows).toHaveLength(1)
    expect(r.rows[0]).toMatchObject({ line: 3, measuredTps: 120, hardware: 'rtx-4090' })
    expect(r.rows[0]!.query.memBwGbs).toBeGreaterThan(900)
    expect(r.problems).toEqual([{ line: 4, message: expect.stringContaining('hardware') }])
    expect(parseRows('paramsB,memBwGbs,tflops,measuredTps,color\n7,1,1,1,red\n', 'csv').problems[0]).toMatchObject({ line: 1, message: expect.stringContaining('"color"') })
    expect(parseRows('{"paramsB":7,"memBwGbs":100,"tflops":10,"measuredTps":5,"tokens_per_s":5}', 'jsonl').problems[0]!.message).toContain('not both')
  })
})
