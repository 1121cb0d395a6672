/**
 * Measurement files for `kerneltune train` and `kerneltune calibrate`: read, then checked row by
 * row by @kerneltune/regressor (parseRows: the schema, the query, the problems with their line
 * numbers); here only the file, the flags and the exit code.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { detectFormat, parseRows, type ReadRows, type RowProblem } from '@kerneltune/regressor'
import { usageError } from '../../cli/args.ts'
import type { Io } from '../../cli/command.ts'

export { MEASUREMENT_ROW_KEYS as ROW_KEYS, parseRows, type MeasuredRow, type ReadRows, type RowProblem } from '@kerneltune/regressor'

/** Reads and checks a measurement file named by `flag`. */
export async function readRows(io: Io, file: string, flag: string): Promise<ReadRows> {
  let text: string
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8')
  } catch (err) {
    throw usageError(`--${flag}: cannot read "${file}": ${(err as Error).message}`)
  }
  return parseRows(text, detectFormat(file, text))
}

/**
 * Fails (exit 2) listing every bad row unless `skipBad`; the message names the file and lines.
 * Returns the problems so the caller can report what it skipped.
 */
export function rejectBadRows(read: ReadRows, file: string, flag: string, skipBad: boolean): RowProblem[] {
  if (read.problems.length === 0 || skipBad) return read.problems
  const shown = read.problems.slice(0, 20).map((p) => `  ${file}:${p.line}: ${p.message}`).join('\n')
  const more = read.problems.length > 20 ? `\n  ... and ${read.problems.length - 20} more` : ''
  throw usageError(`--${flag}: ${read.problems.length} bad row(s) in "${file}" (fix them, or pass --skip-bad to leave them out):\n${shown}${more}`, { problems: read.problems })
}

/** --skip-bad, as every command that reads a measurement file takes it. */
export const SKIP_BAD_FLAG = { name: 'skip-bad', type: 'boolean', description: 'Leave out bad rows (listed on stderr) instead of failing.' } as const

/** What a command that reads a measurement file (`--<flag> FILE`) and writes a model (`--out FILE`) was given. */
export interface MeasurementFileRequest {
  readonly flag: string
  readonly file: string | undefined
  /** What the file holds, for the message when it is missing. */
  readonly what: string
  readonly out: string | undefined
  /** What --out receives, for the message when it is missing. */
  readonly outWhat: string
  readonly skipBad: boolean | undefined
}

/**
 * Both files named (exit 2 otherwise), the measurement file read and checked: bad rows refused,
 * or with --skip-bad left out and listed on stderr.
 */
export async function readMeasurementFile(io: Io, r: MeasurementFileRequest): Promise<{ file: string; out: string; read: ReadRows; skipped: RowProblem[] }> {
  if (r.file === undefined) throw usageError(`--${r.flag} FILE is required (${r.what})`)
  if (r.out === undefined) throw usageError(`--out FILE is required (${r.outWhat})`)
  const read = await readRows(io, r.file, r.flag)
  const skipped = rejectBadRows(read, r.file, r.flag, r.skipBad === true)
  for (const p of skipped) io.stderr(`skipped ${r.file}:${p.line}: ${p.message}\n`)
  return { file: r.file, out: r.out, read, skipped }
}
