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

export function loadSnapshot(): LoadSnapshot {
  let uptime: string
  try {
    uptime = execFileSync('uptime', { encoding: 'utf8' }).trim()
  } catch (err) {
    uptime = `uptime unavailable: ${err instanceof Error ? err.message : String(err)}`
  }
  return { utc: new Date().toISOString(), uptime, loadAverage: loadavg(), cpus: cpus().length }
}
