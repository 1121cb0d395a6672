/**
 * The one CSV reader of the workspace (RFC 4180): comma-separated fields, double-quoted fields
 * that may hold commas, doubled quotes and line breaks, records ended by LF, CRLF or a lone CR, a
 * leading byte-order mark dropped. It is lenient where files written by hand or by spreadsheets
 * are: blank lines are skipped, a missing line break at the end is fine, and an unclosed quote
 * costs one record, not the rest of the file.
 */

export interface CsvRecord {
  /** 1-based line on which the record starts (records with quoted line breaks span several). */
  readonly line: number
  /** The fields as written, unquoted, not trimmed. */
  readonly cells: string[]
}

export interface CsvProblem {
  readonly line: number
  readonly message: string
}

export interface CsvOptions {
  /** Lines whose first non-blank character is this one are skipped (e.g. `'#'`). */
  readonly comment?: string
}

export interface CsvResult {
  readonly records: CsvRecord[]
  readonly problems: CsvProblem[]
}

const isBreak = (c: string | undefined) => c === '\n' || c === '\r'

/** Index just past the line break that ends the physical line holding `i` (or the text's end). */
function nextLine(s: string, i: number): number {
  while (i < s.length && !isBreak(s[i])) i++
  if (i < s.length) i += s[i] === '\r' && s[i + 1] === '\n' ? 2 : 1
  return i
}

/** Parses CSV text into records; a record whose quote never closes is a problem, and reading goes on at the next line. */
export function parseCsv(text: string, options: CsvOptions = {}): CsvResult {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const records: CsvRecord[] = []
  const problems: CsvProblem[] = []
  let i = 0
  let line = 1
  while (i < s.length) {
    const end = nextLine(s, i)
    const first = s.slice(i, end).trimStart()
    if (first === '' || (options.comment && first.startsWith(options.comment))) {
      i = end
      line++
      continue
    }
    const cells: string[] = []
    let field = ''
    let quoted = false
    let lines = 0
    let j = i
    for (; j < s.length; j++) {
      const c = s[j]!
      if (quoted) {
        if (c === '"' && s[j + 1] === '"') (field += '"'), j++
        else if (c === '"') quoted = false
        else {
          if (c === '\n' || (c === '\r' && s[j + 1] !== '\n')) lines++
          field += c
        }
      } else if (c === '"') quoted = true
      else if (c === ',') cells.push(field), (field = '')
      else if (isBreak(c)) break
      else field += c
    }
    if (quoted) {
      // Most likely a stray quote on this line, so only this line is lost.
      problems.push({ line, message: 'unclosed quote' })
      i = end
      line++
      continue
    }
    cells.push(field)
    records.push({ line, cells })
    i = nextLine(s, j)
    line += lines + 1
  }
  return { records, problems }
}
