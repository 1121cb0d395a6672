/**
 * Measurement files for `kerneltune train` and `kerneltune calibrate`: JSON lines or CSV whose
 * keys / columns are named like predict's query keys, plus the measured throughput. Every row is
 * checked by a zod schema (unknown keys are errors, so a typo such as "paramB" is caught rather
 * than silently defaulted) and turned into a query the same way `predict --input` does. Problems
 * are collected per row with the file's line number, so a user can fix them all in one pass.
 */
import { readFile } from 'node:fs/promises'
import { extname, resolve } from 'node:path'
import { z } from 'zod'
import { isKerneltuneError, parseCsv, validateWith } from '@kerneltune/core'
import { VENDOR_NAMES, type ThroughputQuery } from '@kerneltune/regressor'
import { usageError } from '../../cli/args.ts'
import type { Io } from '../../cli/command.ts'
import { queryFromRow } from '../predict/models.ts'

const count = z.number().int().min(1)
const positive = z.number().positive()

/** One measured row. `measuredTps` (tokens/s) is the target; `tokens_per_s` is accepted for it. */
export const MeasurementRowSchema = z.strictObject({
  paramsB: positive,
  activeParamsB: positive.optional(),
  quant: z.string().min(1).optional(),
  batch: count.optional(),
  phase: z.enum(['decode', 'prefill']).optional(),
  promptTokens: count.optional(),
  contextTokens: z.number().int().min(0).optional(),
  context: z.number().int().min(0).optional(),
  hardware: z.string().min(1).optional(),
  memBwGbs: positive.optional(),
  tflops: positive.optional(),
  unifiedMemory: z.boolean().optional(),
  vendor: z.enum(VENDOR_NAMES).optional(),
  /** Kernel figures (issue 38; override the preset's): int8 TOPS, FP16 ALU TFLOPS, clock MHz, compute units. */
  int8Tops: positive.optional(),
  fp16VectorTflops: positive.optional(),
  clockMhz: positive.optional(),
  computeUnits: count.optional(),
  measuredTps: positive.optional(),
  tokens_per_s: positive.optional(),
  /** Free-form label kept for provenance (not a feature). */
  id: z.string().optional(),
}).superRefine((r, ctx) => {
  if (r.measuredTps === undefined && r.tokens_per_s === undefined) ctx.addIssue({ code: 'custom', path: ['measuredTps'], message: 'the measured throughput is missing (measuredTps, tokens/s)' })
  if (r.measuredTps !== undefined && r.tokens_per_s !== undefined) ctx.addIssue({ code: 'custom', path: ['tokens_per_s'], message: 'give measuredTps or tokens_per_s, not both' })
  if (r.hardware === undefined && (r.memBwGbs === undefined || r.tflops === undefined)) ctx.addIssue({ code: 'custom', path: ['hardware'], message: 'give "hardware" (a preset) or both "memBwGbs" and "tflops"' })
})

export const ROW_KEYS: readonly string[] = Object.keys(MeasurementRowSchema.shape)
const NUMERIC = new Set(['paramsB', 'activeParamsB', 'batch', 'promptTokens', 'contextTokens', 'context', 'memBwGbs', 'tflops', 'int8Tops', 'fp16VectorTflops', 'clockMhz', 'computeUnits', 'measuredTps', 'tokens_per_s'])

export interface MeasuredRow {
  /** 1-based line in the file. */
  line: number
  query: ThroughputQuery
  measuredTps: number
  id?: string
  /** The row's hardware preset name, when it gave one (for display). */
  hardware?: string
}

export interface RowProblem {
  line: number
  message: string
}

export interface ReadRows {
  format: 'jsonl' | 'csv'
  rows: MeasuredRow[]
  problems: RowProblem[]
}

/** Checks one parsed record; returns the row or the problem. */
export function checkRow(record: unknown, line: number): MeasuredRow | RowProblem {
  const v = validateWith(MeasurementRowSchema, record)
  if (!v.ok) return { line, message: v.errors.join('; ') }
  const { measuredTps, tokens_per_s, id, ...q } = v.value
  try {
    const row: MeasuredRow = { line, query: queryFromRow(q), measuredTps: (measuredTps ?? tokens_per_s)! }
    if (id !== undefined) row.id = id
    if (q.hardware !== undefined) row.hardware = q.hardware
    return row
  } catch (err) {
    return { line, message: isKerneltuneError(err) ? err.message : String(err) }
  }
}

function csvValue(key: string, raw: string): unknown {
  if (NUMERIC.has(key)) {
    const n = Number(raw)
    return Number.isFinite(n) ? n : raw
  }
  if (key === 'unifiedMemory') {
    const v = raw.toLowerCase()
    if (['true', '1', 'yes'].includes(v)) return true
    if (['false', '0', 'no'].includes(v)) return false
  }
  return raw
}

/** Parses file text (CSV or JSON lines). Blank lines and lines starting with # are skipped. */
export function parseRows(text: string, format: 'jsonl' | 'csv'): ReadRows {
  const rows: MeasuredRow[] = []
  const problems: RowProblem[] = []
  const add = (r: MeasuredRow | RowProblem) => ('query' in r ? rows.push(r) : problems.push(r))
  if (format === 'jsonl') {
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = i + 1
      if (raw.trim() === '' || raw.trimStart().startsWith('#')) return
      let value: unknown
      try {
        value = JSON.parse(raw)
      } catch (err) {
        return void problems.push({ line, message: `not valid JSON: ${(err as Error).message}` })
      }
      add(checkRow(value, line))
    })
    return { format, rows, problems }
  }
  const csv = parseCsv(text, { comment: '#' })
  problems.push(...csv.problems)
  let header: string[] | undefined
  for (const { line, cells: raw } of csv.records) {
    const cells = raw.map((c) => c.trim())
    if (!header) {
      header = cells
      const unknown = cells.filter((c) => !ROW_KEYS.includes(c))
      if (unknown.length) problems.push({ line, message: `unknown column(s) ${unknown.map((u) => `"${u}"`).join(', ')}; accepted: ${ROW_KEYS.join(', ')}` })
      continue
    }
    if (cells.length !== header.length) {
      problems.push({ line, message: `${cells.length} fields, but the header has ${header.length}` })
      continue
    }
    const record: Record<string, unknown> = {}
    header.forEach((key, j) => {
      if (cells[j] !== '') record[key] = csvValue(key, cells[j]!)
    })
    add(checkRow(record, line))
  }
  problems.sort((a, b) => a.line - b.line)
  return { format, rows, problems }
}

/** `.csv` is CSV, `.jsonl`/`.ndjson` JSON lines; otherwise a first character `{` means JSON lines. */
export function detectFormat(file: string, text: string): 'jsonl' | 'csv' {
  const ext = extname(file).toLowerCase()
  if (ext === '.csv') return 'csv'
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl'
  return text.trimStart().startsWith('{') ? 'jsonl' : 'csv'
}

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
