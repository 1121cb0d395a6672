/**
 * A parser for the Prometheus text exposition format (version 0.0.4), enough for what inference
 * servers export: `# HELP`/`# TYPE` lines, samples with optional labels and timestamps, and the
 * special values NaN, +Inf and -Inf. Names keep their colons (`engine:metric`, as several engines spell them).
 */
import { KerneltuneError } from '@kerneltune/core'

export interface PrometheusSample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface PrometheusMetrics {
  readonly samples: readonly PrometheusSample[]
  /** Metric name → its declared type (counter, gauge, histogram, summary, untyped). */
  readonly types: Readonly<Record<string, string>>
  readonly help: Readonly<Record<string, string>>
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?\s*$/
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/y

function parseValue(s: string): number {
  if (s === 'NaN') return Number.NaN
  if (s === '+Inf' || s === 'Inf') return Number.POSITIVE_INFINITY
  if (s === '-Inf') return Number.NEGATIVE_INFINITY
  const v = Number(s)
  return v
}

function parseLabels(body: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {}
  LABEL.lastIndex = 0
  let pos = 0
  while (pos < body.length) {
    LABEL.lastIndex = pos
    const m = LABEL.exec(body)
    if (!m) throw new KerneltuneError('INVALID_FORMAT', `Prometheus text, line ${line}: cannot read the labels {${body}}; expected name="value" pairs`)
    labels[m[1]!] = m[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\')
    pos = LABEL.lastIndex
  }
  return labels
}

/** Parses an exposition; throws INVALID_FORMAT naming the first line it cannot read. */
export function parsePrometheus(text: string): PrometheusMetrics {
  const samples: PrometheusSample[] = []
  const types: Record<string, string> = {}
  const help: Record<string, string> = {}
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim()
    if (line === '') continue
    if (line.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)\s*(.*)$/.exec(line)
      if (m?.[1] === 'TYPE') types[m[2]!] = m[3]!.trim()
      else if (m?.[1] === 'HELP') help[m[2]!] = m[3]!
      continue
    }
    const m = SAMPLE.exec(line)
    const value = m ? parseValue(m[4]!) : Number.NaN
    if (!m || (Number.isNaN(value) && m[4] !== 'NaN')) {
      throw new KerneltuneError('INVALID_FORMAT', `Prometheus text, line ${i + 1}: "${line.slice(0, 120)}" is not a sample (name{labels} value [timestamp])`)
    }
    samples.push({ name: m[1]!, labels: m[3] ? parseLabels(m[3], i + 1) : {}, value })
  }
  return { samples, types, help }
}

/** The value of the first sample of `name` whose labels include `labels`; undefined when absent. */
export function metricValue(metrics: PrometheusMetrics, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const s = metrics.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))
  return s?.value
}
