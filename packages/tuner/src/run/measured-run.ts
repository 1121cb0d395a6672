/**
 * Load measurements as a stored run (issue 25; moved out of the CLI in issue 36): what `kerneltune
 * bench serve` and `bench capacity` measured goes to the store like a sweep's, so History lists it
 * and `run show` prints its one verdict. Each load level (bench serve) or measurement (bench
 * capacity) is one combination of the run, its repetitions in the server backend's shape (the
 * requests the summary judges objectives by), and the run's options carry the objectives.
 *
 * The combinations are loads on one server configuration, not candidates against the defaults:
 * none is a baseline, so no gate compares them, and the objectives' evidence says which level is
 * best and that nothing was compared with defaults; runVerdict then decides from that evidence, so
 * what is stored and printed is one verdict.
 */
import type { Combo, HardwareSpec, ModelSpec, RepetitionMetrics } from '@kerneltune/core'
import { parseWith, WorkloadSchema } from '@kerneltune/core'
import { comboHash, createCatalog } from '@kerneltune/catalog'
import { objectivesRecord, type Objectives } from '@kerneltune/serving'
import type { Store } from '@kerneltune/store'
import { runOptions } from './create.ts'
import { comboMetrics } from './metrics.ts'
import { summarizeRun } from './summary.ts'
import { runVerdict } from './verdict.ts'

/** One combination: its load (and which measurement, for capacity) and the repetitions measured at it. */
export interface MeasuredLevel {
  readonly combo: Combo
  readonly repetitions: readonly RepetitionMetrics[]
  /** Whether any request completed at this load; a level without one is stored as failed. */
  readonly served: boolean
}

export interface MeasuredRun {
  /** Which command measured: serve (levels) or capacity (the search's measurements). */
  readonly command: 'serve' | 'capacity'
  readonly model: ModelSpec
  readonly hardware: HardwareSpec
  readonly engine: string
  readonly engineVersion: string
  /** The model file the server was launched with, when kerneltune launched it. */
  readonly modelPath?: string | undefined
  /** The engine settings the server was launched with. */
  readonly settings: Combo
  readonly server: { readonly argv: readonly string[]; readonly version: string; readonly baseUrl: string; readonly launched: boolean }
  /** A server kerneltune did not launch (the load's machine may not be the server's): named in the note. */
  readonly endpoint?: string | undefined
  readonly workload: { readonly promptTokens: number; readonly generatedTokens: number }
  readonly objectives?: Objectives | undefined
  readonly levels: readonly MeasuredLevel[]
  readonly device: string
  readonly durationMs: number
  /** Added to the summary as is (bench capacity: its capacity). */
  readonly extra?: Record<string, unknown>
}

/** The objectives' reason, in words that do not compare levels with defaults none were measured against. */
function levelsReason(winner: number | null, objective: string): string {
  return winner === null
    ? 'load levels of one server configuration (no defaults compared): no level meets the objectives'
    : `load levels of one server configuration (no defaults compared): #${winner} is the best level by ${objective} that meets the objectives`
}

/** Stores the measurements as a finished run, with its one verdict; returns the run's id. */
export async function recordMeasuredRun(store: Store, o: MeasuredRun): Promise<string> {
  const catalog = createCatalog()
  const first = o.levels[0]?.combo
  const run = await store.runs.create({
    tenant: 'default',
    mode: 'exhaustive',
    target: {
      model: o.model, hardware: o.hardware, engine: o.engine, engineVersion: o.engineVersion,
      workload: parseWith(WorkloadSchema, { batch: Math.max(1, Number(first?.concurrency ?? 1)), promptTokens: o.workload.promptTokens, generatedTokens: o.workload.generatedTokens }, 'bench workload'),
      ...(o.modelPath ? { modelPath: o.modelPath } : {}),
      options: {
        bench: { command: o.command, settings: o.settings, server: { argv: [...o.server.argv], version: o.server.version, baseUrl: o.server.baseUrl, launched: o.server.launched } },
        warmups: 0, metric: 'throughputTps', useCache: false,
        ...objectivesRecord(o.objectives),
      },
    },
    snapshot: { hash: catalog.hash, version: catalog.version, content: catalog.snapshot },
    // No baseline: no gate judges these combinations (summarizeRun gates only against one).
    qualityGate: 'manual',
    backend: 'server',
    repetitions: Math.max(...o.levels.map((l) => l.repetitions.length), 1),
    combos: o.levels.map((l) => ({ combo: l.combo, comboHash: comboHash(l.combo), isBaseline: false })),
  })
  await store.runs.setStatus(run.id, 'running')
  for (const [i, l] of o.levels.entries()) {
    await store.runs.recordCombo(run.id, i, { status: l.served ? 'measured' : 'failed', simulated: false, cached: false, repetitions: [...l.repetitions], metrics: l.served ? comboMetrics(l.repetitions) : null, comparison: null, error: l.served ? null : 'no request completed at this load' })
  }
  const stored = await store.runs.require(null, run.id)
  const combos = await store.runs.combos(run.id)
  const { summary } = summarizeRun(stored, combos, runOptions(stored), { devices: [o.device], durationMs: o.durationMs, stoppedEarly: [] })
  if (summary.objectives && !summary.objectives.note) {
    summary.objectives.decision = { ...summary.objectives.decision, reason: levelsReason(summary.objectives.decision.winner, summary.objectives.objective), test: 'none: the levels are loads, not candidates against defaults' }
    // The one verdict, decided again from the evidence as stored, so that the two say the same.
    summary.verdict = runVerdict(summary)
  }
  const note = `kerneltune bench ${o.command}: each combination is a ${o.command === 'capacity' ? 'measurement of the capacity search' : 'load level'} on one server configuration${Object.keys(o.settings).length ? ` (${JSON.stringify(o.settings)})` : ''}, not a setting; the winner is the best load, not a configuration to apply${o.endpoint ? `; the server at ${o.endpoint} may run on other hardware than the one recorded (this machine's, which sent the load)` : ''}`
  const ok = combos.some((c) => c.status === 'measured')
  await store.runs.finish(run.id, ok ? 'succeeded' : 'failed', { ...summary, bench: { command: o.command, note }, ...o.extra }, new Map(), ok ? null : 'no request completed at any load')
  return run.id
}
