/**
 * Starts bench/support/noise-maker.mjs as a child process (a noisy neighbour whose CPU load jumps
 * between 0 and `max` spinning threads at random moments) and, when stopped, says how much of the
 * time was spent at each level. The child dies with its parent: it stops when its stdin closes.
 */
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const MAKER = join(dirname(fileURLToPath(import.meta.url)), 'noise-maker.mjs')

export interface NoiseSettings {
  readonly seed: number
  /** Spinning threads at the busiest level. */
  readonly max: number
  /** Mean dwell time at a level, ms (exponentially distributed). */
  readonly meanMs: number
}

export interface NoiseReport extends NoiseSettings {
  readonly seconds: number
  readonly changes: number
  /** Share of the time at each level (index = spinning threads). */
  readonly shareAtLevel: number[]
  /** Mean spinning threads over the run. */
  readonly meanLevel: number
}

export interface Noise {
  stop(): Promise<NoiseReport>
}

export function startNoise(s: NoiseSettings): Noise {
  const child = spawn(process.execPath, [MAKER, '--seed', String(s.seed), '--max', String(s.max), '--mean-ms', String(s.meanMs)], { stdio: ['pipe', 'pipe', 'inherit'] })
  const events: { t: number; level: number }[] = []
  let buffer = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk
    let i
    while ((i = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, i)
      buffer = buffer.slice(i + 1)
      if (line.trim()) events.push(JSON.parse(line) as { t: number; level: number })
    }
  })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  return {
    async stop() {
      child.stdin.end()
      await exited
      const time = new Array<number>(s.max + 1).fill(0)
      for (let k = 0; k + 1 < events.length; k++) time[events[k]!.level]! += events[k + 1]!.t - events[k]!.t
      const total = time.reduce((a, b) => a + b, 0) || 1
      const shareAtLevel = time.map((x) => x / total)
      return { ...s, seconds: total / 1000, changes: Math.max(0, events.length - 2), shareAtLevel, meanLevel: shareAtLevel.reduce((a, x, level) => a + x * level, 0) }
    },
  }
}
