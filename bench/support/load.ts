/**
 * The machine's load when a bench starts and ends: timings on a shared machine mean little without
 * it. `uptime` is the line a reader can compare with their own; loadavg() the same numbers parsed.
 */
import { execFileSync } from 'node:child_process'
import { cpus, loadavg } from 'node:os'

export interface LoadSnapshot {
  utc: string
  /** The `uptime` command's output line, or why it could not be read. */
  uptime: string
  loadAverage: number[]
  cpus: number
}

/** The `uptime` line, or the load averages in its words where the command is missing. */
export function uptimeLine(): string {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim()
  } catch {
    return `load average: ${loadavg().map((x) => x.toFixed(2)).join(', ')}`
  }
}

export function loadSnapshot(): LoadSnapshot {
  return { utc: new Date().toISOString(), uptime: uptimeLine(), loadAverage: loadavg(), cpus: cpus().length }
}

/** The median; NaN for no values. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  if (!s.length) return Number.NaN
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
