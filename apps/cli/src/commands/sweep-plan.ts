/**
 * What both paths of `kerneltune sweep` share: the per-mode run lengths, the plan (the space
 * enumerated through the catalog with llama.cpp's rules) and the report of a sequential sweep.
 * Its own module so the command (sweep.ts) and its server/interleaved path (sweep-server-run.ts,
 * sweep-server.ts) depend on it rather than on each other.
 */
import { formatCommandLine, type CatalogExtension, type Combo, type HardwareSpec } from '@kerneltune/core'
import { sweepExtension, sweepSpace, withoutDefaults, type SweepMode, type SweepSpace } from '@kerneltune/engines-llamacpp'
import { type SweepResult } from '@kerneltune/experiment'
import { planThroughCatalog as planWith, type SweepPlan } from '@kerneltune/tuner'
import { fmt, table } from '../cli/output.ts'

export type { SweepPlan }

/** Per-mode run lengths: quick is sized for a tiny model on 2 cores in 1–2 minutes. */
export const SWEEP_DEFAULTS = {
  quick: { promptTokens: 64, genTokens: 16, minReps: 3, maxReps: 4 },
  standard: { promptTokens: 128, genTokens: 32, minReps: 3, maxReps: 8 },
} as const

/** Enumerates the sweep space through the catalog, with llama.cpp's legality rules. */
export function planSweep(mode: SweepMode, hardware: HardwareSpec, logicalCores: number, override?: SweepSpace): SweepPlan {
  const space = sweepSpace(mode, logicalCores, override)
  return planThroughCatalog(mode, space, sweepExtension(space), withoutDefaults, hardware)
}

/** The tuner's plan (planThroughCatalog), for llama.cpp unless another engine is named. */
export const planThroughCatalog = (mode: SweepMode, space: SweepSpace, extension: CatalogExtension, nonDefault: (combo: Combo) => Combo, hardware: HardwareSpec, engine = 'llamacpp'): SweepPlan =>
  planWith(mode, space, extension, nonDefault, hardware, engine)

/** A combination as its settings that differ from the defaults. */
export const label = (c: Combo) => {
  const s = Object.entries(withoutDefaults(c)).map(([k, v]) => `${k}=${v}`).join(' ')
  return s || '(defaults)'
}

const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '-' : `${x >= 0 ? '+' : ''}${fmt(x * 100, 1)}%`)

/** The human report: every combination against the defaults, then `decision` (the run's verdict and its command line), else the design's winner and its. */
export function renderSweep(r: SweepResult, decision?: string): string {
  const m = r.metric
  const rows = [...r.combos]
    .sort((a, b) => (b.stats[m]?.trimmedMean ?? -Infinity) - (a.stats[m]?.trimmedMean ?? -Infinity))
    .map((c) => {
      const cmp = c.comparison[m]
      return [
        label(c.combo),
        c.error ? 0 : c.reps.length,
        c.error ? `failed: ${c.error.slice(0, 60)}` : fmt(c.stats.decodeTps?.trimmedMean ?? NaN),
        pct(c.comparison.decodeTps?.improvement),
        cmp ? cmp.welch.pValue.toPrecision(2) : '-',
        cmp ? fmt(cmp.cohensD, 2) : '-',
        fmt(c.stats.prefillTps?.trimmedMean ?? NaN),
        pct(c.comparison.prefillTps?.improvement),
        c.gate ? (c.gate.passed ? 'pass' : c.gate.status) : '-',
      ]
    })
  const b = r.baseline.stats
  let out = `device: ${r.device}\n`
  out += `baseline (llama-server defaults): decode ${fmt(b.decodeTps?.trimmedMean ?? NaN)} tok/s, prefill ${fmt(b.prefillTps?.trimmedMean ?? NaN)} tok/s (trimmed means of ${r.baseline.reps.length} reps)\n\n`
  out += table(rows, ['combination', 'reps', 'decode tok/s', 'vs default', `p (${m})`, 'd', 'prefill tok/s', 'vs default', `gate (${r.gate.method})`])
  if (decision !== undefined) return `${out}\n${decision}`
  out += `\n${r.winner ? `winner: ${label(r.winner.combo)}: ${r.verdict}` : `no winner: ${r.verdict}`}\n`
  out += `recommended: ${formatCommandLine({ argv: r.recommendedArgv })}\n`
  return out
}

