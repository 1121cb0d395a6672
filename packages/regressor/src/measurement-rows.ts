/**
 * Measurement rows for training and calibration (moved out of the CLI in issue 36): JSON lines or
 * CSV whose keys / columns are named like predict's query keys, plus the measured throughput. Every
 * row is checked by a zod schema (unknown keys are errors, so a typo such as "paramB" is caught
 * rather than silently defaulted) and turned into a query as `kerneltune predict --input` does.
 * Problems are collected per row with the file's line number, so a user can fix them all in one pass.
 */
import { z } from 'zod'
import { isKerneltuneError, KerneltuneError, parseCsv, validateWith } from '@kerneltune/core'
import { findHardwarePreset } from '@kerneltune/features'
import { parseQuery, VENDOR_NAMES, type ThroughputQuery, type ThroughputQueryInput } from './query.ts'

const invalid = (message: string) => new KerneltuneError('INVALID_INPUT', message)

const VENDORS = ['nvidia', 'amd', 'apple', 'intel']

/**
 * One JSONL row (keys named like the flags) → a query. `hardware` names a preset (its specifications,
 * vendor and usual backend); explicit memBwGbs / tflops / vendor / backend override it. `context` is
 * an alias of contextTokens. Every key is checked by the query's zod schema (an unknown backend or
 * vendor is an error that lists the accepted values).
 */
/** The kernel figures a query takes (issue 38): int8 rate, FP16 ALU rate, clock, compute units. */
export const KERNEL_KEYS = ['int8Tops', 'fp16VectorTflops', 'clockMhz', 'computeUnits'] as const

/**
 * The kernel figures of a preset (or of several sources, a later one's given figures over an
 * earlier one's: a preset's, then flags') as query fields, those given.
 */
export function kernelFiguresQuery(...sources: Partial<Record<(typeof KERNEL_KEYS)[number], number | undefined>>[]): Partial<Record<(typeof KERNEL_KEYS)[number], number>> {
  const out: Partial<Record<(typeof KERNEL_KEYS)[number], number>> = {}
  for (const p of sources) for (const k of KERNEL_KEYS) if (p[k] !== undefined) out[k] = p[k]
  return out
}

export function queryFromRow(row: unknown): ThroughputQuery {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) throw invalid('each line must be a JSON object')
  const r = { ...(row as Record<string, unknown>) }
  const q: Record<string, unknown> = {}
  if (r.hardware !== undefined) {
    const p = findHardwarePreset(String(r.hardware))
    if (!p) throw invalid(`unknown hardware "${String(r.hardware)}" (see kerneltune hardware list)`)
    Object.assign(q, { memBwGbs: p.memBwGbs, tflops: p.fp16Tflops, unifiedMemory: p.unifiedMemory ?? false, vendor: VENDORS.includes(p.vendor) ? p.vendor : 'other', ...(p.tdpWatts ? { tdpWatts: p.tdpWatts } : {}), ...kernelFiguresQuery(p) })
  }
  if (r.hardware !== undefined && findHardwarePreset(String(r.hardware))?.kind === 'cpu') q.device = 'cpu'
  if (r.hardware !== undefined) {
    const backend = findHardwarePreset(String(r.hardware))?.backend
    if (backend) q.backend = backend
  }
  for (const k of ['paramsB', 'activeParamsB', 'quant', 'bitsPerWeight', 'batch', 'phase', 'promptTokens', 'contextTokens', 'memBwGbs', 'tflops', 'unifiedMemory', 'vendor', 'backend', 'layers', 'device', 'ubatch', 'tdpWatts', ...KERNEL_KEYS]) {
    if (r[k] !== undefined) q[k] = r[k]
  }
  if (r.context !== undefined && r.contextTokens === undefined) q.contextTokens = r.context
  if (q.quant === undefined) q.quant = 'Q4_K'
  if (q.memBwGbs === undefined || q.tflops === undefined) throw invalid('each row needs "hardware" (a preset) or both "memBwGbs" and "tflops"')
  return parseQuery(q as ThroughputQueryInput)
}

const count = z.number().int().min(1)
const positive = z.number().positive()

/** One measured row. `measuredTps` (tokens/s) is the target; `tokens_per_s` is accepted for it. */
const MeasurementRowSchema = z.strictObject({
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

export const MEASUREMENT_ROW_KEYS: readonly string[] = Object.keys(MeasurementRowSchema.shape)
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
      const unknown = cells.filter((c) => !MEASUREMENT_ROW_KEYS.includes(c))
      if (unknown.length) problems.push({ line, message: `unknown column(s) ${unknown.map((u) => `"${u}"`).join(', ')}; accepted: ${MEASUREMENT_ROW_KEYS.join(', ')}` })
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
  // The extension as node's extname reads it: after the last dot of the last segment, not a leading one.
  const base = file.split(/[\\/]/).pop() ?? ''
  const dot = base.lastIndexOf('.')
  const ext = dot > 0 ? base.slice(dot).toLowerCase() : ''
  if (ext === '.csv') return 'csv'
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl'
  return text.trimStart().startsWith('{') ? 'jsonl' : 'csv'
}
