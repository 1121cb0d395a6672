import { describe, expect, it } from 'vitest'
import { detectFormat, MEASUREMENT_ROW_KEYS, parseRows } from './index.ts'

// Measurement rows: every bad row reported with its line, good rows turned into queries as predict does.
describe('parseRows', () => {
  it('should read JSON lines and CSV alike, and list every bad row by line', () => {
    const jsonl = parseRows('# comment\n{"paramsB": 1, "hardware": "RTX 4090", "measuredTps": 120}\n{"paramB": 1, "measuredTps": 5}\nnot json\n', 'jsonl')
    expect(jsonl.rows).toHaveLength(1)
    expect(jsonl.rows[0]).toMatchObject({ line: 2, measuredTps: 120, hardware: 'RTX 4090', query: { paramsB: 1, quant: 'Q4_K' } })
    expect(jsonl.problems.map((p) => p.line)).toEqual([3, 4])
    expect(jsonl.problems[0]!.message).toMatch(/paramB/)
    const csv = parseRows('paramsB,memBwGbs,tflops,tokens_per_s\n7,1000,100,42\n7,x,100,1\n', 'csv')
    expect(csv.rows[0]).toMatchObject({ line: 2, measuredTps: 42, query: { paramsB: 7, memBwGbs: 1000, tflops: 100 } })
    expect(csv.problems.map((p) => p.line)).toEqual([3])
    expect(parseRows('paramsB,speed\n1,2\n', 'csv').problems[0]!.message).toMatch(/unknown column\(s\) "speed"; accepted: /)
    expect(MEASUREMENT_ROW_KEYS).toContain('measuredTps')
  })

  it('should tell the format by extension, else by the first character', () => {
    expect(detectFormat('/d/m.CSV', '{')).toBe('csv')
    expect(detectFormat('m.ndjson', 'a,b')).toBe('jsonl')
    expect(detectFormat('dir.csv/rows', '{"a":1}')).toBe('jsonl')
    expect(detectFormat('.csv', 'paramsB')).toBe('csv')
  })
})
