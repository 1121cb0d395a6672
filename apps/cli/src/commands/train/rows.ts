/**
 * Measurement files for `kerneltune train` and `kerneltune calibrate`: read, then checked row by
 * row by @kerneltune/regressor (parseRows: the schema, the query, the problems with their line
 * numbers); here only the file, the flags and the exit code.
 */
import { detectFormat, parseRows, type ReadRows, type RowProblem } from '@kerneltune/regressor'
import { usageError } from '../../cli/args.ts'
import type { Io } from '../../cli/command.ts'
import { readFlagFile } from '../../cli/files.ts'

export { MEASUREMENT_ROW_KEYS as ROW_KEYS } from '@kerneltune/regressor'

/** The flags of a command that fits a model on a measurement file (`--<flag> FILE`) and writes it (`--out FILE`). */
export function measurementFlags<const N extends string>(flag: N, what: string, outWhat: string) {
  return [
    { name: flag, type: 'string', valueName: 'FILE', description: `${what}: FILE.csv or FILE.jsonl (required).` },
    { name: 'out', type: 'string', valueName: 'FILE', description: `Where to write ${outWhat} (required).` },
    { name: 'skip-bad', type: 'boolean', description: 'Leave out bad rows (listed on stderr) instead of failing.' },
  ] as const
}

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
 * Both files named (exit 2 otherwise), the measurement file read and checked: bad rows refused
 * with every one listed, or with --skip-bad left out and listed on stderr.
 */
export async function readMeasurementFile(io: Io, r: MeasurementFileRequest): Promise<{ file: string; out: string; read: ReadRows; skipped: RowProblem[] }> {
  if (r.file === undefined) throw usageError(`--${r.flag} FILE is required (${r.what})`)
  if (r.out === undefined) throw usageError(`--out FILE is required (${r.outWhat})`)
  const text = await readFlagFile(io, r.file, r.flag)
  const read = parseRows(text, detectFormat(r.file, text))
  const problems = read.problems
  if (problems.length && r.skipBad !== true) {
    const shown = problems.slice(0, 20).map((p) => `  ${r.file}:${p.line}: ${p.message}`).join('\n')
    const more = problems.length > 20 ? `\n  ... and ${problems.length - 20} more` : ''
    throw usageError(`--${r.flag}: ${problems.length} bad row(s) in "${r.file}" (fix them, or pass --skip-bad to leave them out):\n${shown}${more}`, { problems })
  }
  for (const p of problems) io.stderr(`skipped ${r.file}:${p.line}: ${p.message}\n`)
  return { file: r.file, out: r.out, read, skipped: problems }
}
