/**
 * Human output: aligned tables, and a progress bar that draws on stderr only when it is a
 * terminal (otherwise it prints a line every 10% so logs still show progress).
 */
import type { Io } from './command.ts'

export function table(rows: readonly (readonly unknown[])[], header?: readonly string[]): string {
  const all = header ? [header, ...rows] : rows
  const cells = all.map((r) => r.map((c) => (c === undefined || c === null ? '' : String(c))))
  const widths: number[] = []
  for (const r of cells) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)))
  const isNum = (c: string) => /^-?[\d.,]+(e[-+]?\d+)?%?$/i.test(c)
  const line = (r: string[]) =>
    r.map((c, i) => (isNum(c) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd()
  const out = cells.map(line)
  if (header) out.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '))
  return out.join('\n') + '\n'
}

/** Key/value lines: `label  value`. */
export function keyValues(entries: readonly (readonly [string, unknown])[]): string {
  // Left-aligned values: a number padded to the width of a long neighbour reads badly.
  const width = Math.max(0, ...entries.map(([k]) => k.length))
  return entries.map(([k, v]) => `${k.padEnd(width)}  ${v === undefined || v === null ? '' : String(v)}`.trimEnd()).join('\n') + '\n'
}

export function fmt(n: number, digits = 1): string {
  if (!Number.isFinite(n)) return String(n)
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
}

/** A fraction as a percentage with one decimal: 0.123 → "12.3%". */
export const pct = (x: number): string => `${fmt(x * 100, 1)}%`

export interface Progress {
  update(done: number, note?: string): void
  done(note?: string): void
}

export function progressBar(io: Io, label: string, total: number, enabled = true): Progress {
  const start = Date.now()
  let lastDecile = -1
  const draw = (done: number, note = '') => {
    if (!enabled) return
    const frac = total > 0 ? Math.min(done / total, 1) : 1
    const secs = ((Date.now() - start) / 1000).toFixed(1)
    if (io.interactive) {
      const width = 28
      const filled = Math.round(frac * width)
      io.stderr(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${secs}s ${note}`.slice(0, 120).padEnd(80))
    } else {
      const decile = Math.floor(frac * 10)
      if (decile !== lastDecile) {
        lastDecile = decile
        io.stderr(`${label}: ${done}/${total} (${Math.round(frac * 100)}%) ${secs}s ${note}\n`)
      }
    }
  }
  return {
    update: draw,
    done(note) {
      draw(total, note)
      if (enabled && io.interactive) io.stderr('\n')
    },
  }
}
