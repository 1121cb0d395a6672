import { describe, expect, it } from 'vitest'
import { calibrateRows, calibratedFile, correctionsOf, crossValidate, fitRows, hardwareKey, learnedFromFile, parseQuery, parseRows, pretrainedModel, queryBound, tooFewPerHardware, type MeasuredRow } from './index.ts'

// Three machines, each at a fixed share of the roofline bound with a deterministic ±3% wobble.
function rows(): MeasuredRow[] {
  const hw = [{ memBwGbs: 1008, tflops: 330, eff: 0.7 }, { memBwGbs: 936, tflops: 71, eff: 0.62 }, { memBwGbs: 400, tflops: 27, eff: 0.55 }]
  const lines: string[] = []
  let i = 0
  for (const h of hw) {
    for (const paramsB of [1.5, 3, 7, 8, 13]) {
      for (const batch of [1, 2]) {
        const q = { paramsB, quant: 'Q4_K', memBwGbs: h.memBwGbs, tflops: h.tflops, batch }
        const measuredTps = queryBound(parseQuery(q)).boundTps * h.eff * (1 + 0.03 * Math.sin(i++ * 1.7))
        lines.push(JSON.stringify({ ...q, ...(h.memBwGbs === 1008 ? { hardware: 'rtx-4090' } : {}), measuredTps }))
      }
    }
  }
  const read = parseRows(lines.join('\n'), 'jsonl')
  expect(read.problems).toEqual([])
  return read.rows
}

describe('fitRows', () => {
  it('should report the CV MAPE crossValidate gives, per hardware and with sorted importance, stepping through every fold', () => {
    const rs = rows()
    const steps: [number, string][] = []
    const fit = fitRows(rs, { kind: 'linear' }, { k: 3, seed: 9, trainedOn: 'runs.jsonl', skippedLines: [4], onStep: (d, note) => steps.push([d, note]) })
    const cv = crossValidate(rs.map((r) => ({ query: r.query, measuredTps: r.measuredTps })), { kind: 'linear', k: 3, seed: 9 })
    expect(fit.cv.mape).toBeCloseTo(cv.mape, 12)
    expect(fit.model.json.mape).toBe(fit.cv.mape)
    expect(steps).toEqual([[1, 'fold 1/3'], [2, 'fold 2/3'], [3, 'fold 3/3'], [4, 'final model']])
    expect(fit.byHardware.map((h) => [h.hardware, h.rows])).toEqual([['1008GB/s|330TFLOPS', 10], ['936GB/s|71TFLOPS', 10], ['400GB/s|27TFLOPS', 10]])
    for (let i = 1; i < fit.importance.length; i++) expect(fit.importance[i - 1]![1]).toBeGreaterThanOrEqual(fit.importance[i]![1])
    expect(fit.model.json.meta).toMatchObject({ cvFolds: 3, seed: 9, trainedOn: 'runs.jsonl', skippedLines: [4], rows: rs.map((r) => r.line) })
  })
})

describe('calibrateRows', () => {
  it('should name the hardware with too few points, with its lines', () => {
    const rs = rows()
    expect(tooFewPerHardware(rs)).toBeUndefined()
    expect(tooFewPerHardware([rs[0]!, rs[1]!, rs[10]!])).toBe('calibration needs at least 3 measurements per hardware; rtx-4090 (1008GB/s|330TFLOPS) has 2 (lines 1, 2); 936GB/s|71TFLOPS has 1 (line 11)')
  })

  it('should replace the measured hardware\'s earlier corrections, keep the others, and write a file that loads back', () => {
    const rs = rows().filter((r) => r.query.memBwGbs === 1008)
    const key = hardwareKey(rs[0]!.query)
    const kept = { [`${key}|quant:Q8_0`]: 2, '1GB/s|1TFLOPS': 1.5 }
    const c = calibrateRows(pretrainedModel(), rs, kept)
    expect(c.results).toHaveLength(1)
    expect(c.results[0]).toMatchObject({ hardwareKey: key, hardware: ['rtx-4090'], lines: rs.map((r) => r.line), count: 10 })
    expect(c.corrections['1GB/s|1TFLOPS']).toBe(1.5)
    expect(c.corrections[`${key}|quant:Q8_0`]).toBeUndefined()
    expect(c.keptFor).toEqual([`${key}|quant:Q8_0`, '1GB/s|1TFLOPS'])
    const file = JSON.parse(JSON.stringify(calibratedFile(pretrainedModel(), c.corrections, { note: 'test' })))
    expect(correctionsOf(file)).toEqual(c.corrections)
    expect(learnedFromFile(file).name).toBe(pretrainedModel().name)
    expect(correctionsOf(pretrainedModel().toJSON())).toEqual({})
  })
})
