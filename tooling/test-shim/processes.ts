/**
 * For tests that launch servers and must prove none is left behind: the pids of the processes
 * whose command line names a file (a model path is unique to a test), read from Linux /proc.
 */
import { readdirSync, readFileSync } from 'node:fs'

export function processesNaming(file: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(file)
      } catch {
        return false // the process ended while we looked
      }
    })
    .map(Number)
}
