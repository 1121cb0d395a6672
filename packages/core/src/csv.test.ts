import { describe, expect, it } from 'vitest'
import { parseCsv } from './csv.ts'

const cells = (text: string) => parseCsv(text).records.map((r) => r.cells)

describe('parseCsv', () => {
  it('should unquote fields with commas, doubled quotes and line breaks', () => {
    expect(cells('a,"b,c","d ""e"""\n')).toEqual([['a', 'b,c', 'd "e"']])
    const r = parseCsv('h1,h2\n"two\r\nlines",x\nnext,y')
    expect(r.records).toEqual([{ line: 1, cells: ['h1', 'h2'] }, { line: 2, cells: ['two\r\nlines', 'x'] }, { line: 4, cells: ['next', 'y'] }])
  })

  it('should read LF, CRLF and lone CR alike, drop a byte-order mark and skip blank lines and a trailing break', () => {
    const want = [['a', 'b'], ['1', '2'], ['3', '']]
    expect(cells('a,b\n1,2\n3,\n')).toEqual(want)
    expect(cells('\uFEFFa,b\r\n1,2\r\n\r\n3,\r\n')).toEqual(want)
    expect(cells('a,b\r1,2\r3,')).toEqual(want)
    expect(parseCsv('\n  \na,b\n\n1,2\n\n').records).toEqual([{ line: 3, cells: ['a', 'b'] }, { line: 5, cells: ['1', '2'] }])
  })

  it('should keep fields as written (not trimmed) and empty fields empty', () => {
    expect(cells(' a , b ,,')).toEqual([[' a ', ' b ', '', '']])
  })

  it('should skip comment lines only when asked', () => {
    expect(cells('# c\na')).toEqual([['# c'], ['a']])
    expect(parseCsv('# c\n  # "d\na', { comment: '#' }).records).toEqual([{ line: 3, cells: ['a'] }])
  })

  it('should report an unclosed quote on its line and read on from the next', () => {
    expect(parseCsv('a,b\n"open,1\nc,d\n')).toEqual({ records: [{ line: 1, cells: ['a', 'b'] }, { line: 3, cells: ['c', 'd'] }], problems: [{ line: 2, message: 'unclosed quote' }] })
    expect(parseCsv('"open')).toEqual({ records: [], problems: [{ line: 1, message: 'unclosed quote' }] })
  })
})
