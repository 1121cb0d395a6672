/**
 * `kerneltune sweep` as a stored run: the plan becomes a run in the store (the embedded one by
 * default, or --db), its combinations the run's, and the tuner measures it with the design the
 * sweep asked for, storing every combination's repetitions, its comparison, the design's summary
 * and the run's one verdict. The run is then in History, `run show` reads it, and `--json` carries
 * its `runId`. It is measured by the tuner's executeRun with the composed registry, the call the
 * server's queue makes, so the same stored run measured here or there gets the same combinations,
 * repetitions and verdict. What the server backend needs besides the workload (requests, servers
 * kept across rounds) is stored with the run; the sweep brings only a node-llama-cpp GPU build (`backend`).
 */
import type { Combo, HardwareSpec, MeasurementBackend, ModelSpec, Run, RunCombo } from '@kerneltune/core'
import type { ServingRunSettings } from '@kerneltune/backends/node'
import { KerneltuneError, parseWith, WorkloadSchema } from '@kerneltune/core'
import { comboHash } from '@kerneltune/catalog'
import { LLAMACPP_VERSION } from '@kerneltune/engines-llamacpp'
import type { ExperimentMetric, InterleavedSweepResult, RoundsTest, SweepResult } from '@kerneltune/experiment'
import type { GateMethod } from '@kerneltune/stats'
import { objectivesRecord, type Objectives } from '@kerneltune/serving'
import type { Store } from '@kerneltune/store'
import { executeRun, type RunEvent, type RunVerdict } from '@kerneltune/tuner'
import { defaultRegistry } from '../compose.node.ts'
import { holdRun, type SweepSpec } from './hold.node.ts'
import type { SweepPlan } from './plan.ts'
import type { SweepDecision } from './report.ts'

export interface SweepAsRun<R extends InterleavedSweepResult | SweepResult> {
  readonly store: Store
  readonly modelPath: string
  readonly hardware: HardwareSpec
  readonly plan: SweepPlan
  readonly design: 'sequential' | 'interleaved'
  /** The registered backend that measures the run (node-llama-cpp, server, onnxruntime). */
  readonly backendName: string
  /** Instead of the registry's, for what the stored run cannot tell it (a GPU build). */
  readonly backend?: MeasurementBackend
  readonly workload: { readonly batch: number; readonly promptTokens: number; readonly generatedTokens: number }
  readonly repetitions: number
  readonly warmups: number
  /** The design's settings, stored with the run (options.experiment): every executor reads them there. */
  readonly settings: SweepDesignSettings
  readonly onEvent?: (e: RunEvent) => void
  /** Narrows the design's result to what this path ran (the caller knows which). */
  readonly is: (r: InterleavedSweepResult | SweepResult) => r is R
  readonly session: SweepSession
  /** Latency objectives stated with --slo/--objective: stored with the run, whose summary then judges every combination by them. */
  readonly objectives?: Objectives
  /** When the interleaved rounds must end (Date.now() clock): their share of --time-budget, counted from the first measurement. */
  readonly deadline?: number
  /** The interleaved result after every round but the last, with the run's id: the sweep writes it down (--out). */
  readonly onRound?: (partial: InterleavedSweepResult & { runId: string }) => void | Promise<void>
  /** The model the run records when the file is not a GGUF (an ONNX decoder): default read from the GGUF file. */
  readonly model?: ModelSpec
  /** The engine and release the run records: default llama.cpp's. */
  readonly target?: { readonly engine: string; readonly engineVersion: string }
  /** How the server backend measures the run (options.serving: requests, servers kept, pre-launch), stored so every executor does the same. */
  readonly serving?: ServingRunSettings
}

/** The design settings a sweep stores with its run (the tuner's StoredSettingsSchema reads them back). */
export interface SweepDesignSettings {
  readonly model?: string
  readonly gate?: GateMethod
  readonly metric?: ExperimentMetric
  readonly epsilon?: number
  readonly margin?: number
  readonly warmups?: number
  readonly minReps?: number
  readonly maxReps?: number
  readonly earlyStop?: boolean
  readonly noiseFloor?: number
  readonly rounds?: number
  readonly seed?: number
  readonly test?: RoundsTest
  readonly revisitWarmups?: number
  readonly prelaunch?: boolean
  readonly aaCombo?: Combo
}

/** How this invocation runs the sweep: what the run stores to be resumed, which run it resumes, and its interrupt. */
export interface SweepSession {
  /** The sweep's flags and core count, stored with a new run (sweep-resume.ts). */
  readonly spec: SweepSpec
  /** Continue this stored run instead of creating one. */
  readonly resumeRunId?: string
  /** Take the run over even if the process holding it looks alive. */
  readonly force?: boolean
  /** Aborted with INTERRUPT on SIGINT: the run is left queued, to be resumed. */
  readonly signal?: AbortSignal
}

/** The command that continues a sweep's run. */
export const resumeCommandOf = (runId: string): string => `kerneltune sweep --resume ${runId}`

/** Creates the sweep's run in the store and measures it through the tuner; returns the run id and the design's result. */
export async function sweepAsRun<R extends InterleavedSweepResult | SweepResult>(o: SweepAsRun<R>): Promise<{ runId: string; result: R; decided: SweepDecision }> {
  const model = o.model ?? (await (await import('@kerneltune/features/node')).fromGguf(o.modelPath)).model
  const baseline: Combo = {}
  const combos = [{ combo: baseline, comboHash: comboHash(baseline), isBaseline: true }, ...o.plan.candidates.map((c) => ({ combo: c.combo, comboHash: c.hash, isBaseline: false }))]
  const run = o.session.resumeRunId ? await resumable(o.store, o.session.resumeRunId, combos.map((c) => c.comboHash)) : await o.store.runs.create({
    tenant: 'default',
    mode: o.plan.mode === 'quick' ? 'quick' : 'exhaustive',
    target: {
      model, hardware: o.hardware, engine: o.target?.engine ?? 'llamacpp', engineVersion: o.target?.engineVersion ?? LLAMACPP_VERSION, workload: parseWith(WorkloadSchema, o.workload, 'sweep workload'), modelPath: o.modelPath,
      // A sweep measures fresh: the result cache would answer for another load or space.
      options: { sweep: o.session.spec, experiment: o.settings, warmups: o.warmups, metric: 'throughputTps', noiseFloor: o.settings.noiseFloor ?? 0.05, earlyStop: o.settings.earlyStop ?? true, useCache: false, design: o.design, ...(o.settings.rounds !== undefined ? { rounds: o.settings.rounds } : {}), ...(o.settings.seed !== undefined ? { seed: o.settings.seed } : {}), ...(o.settings.test ? { test: o.settings.test } : {}), ...objectivesRecord(o.objectives), ...(o.serving ? { serving: o.serving } : {}) },
    },
    snapshot: { hash: o.plan.catalog.hash, version: o.plan.catalog.version, content: o.plan.snapshot },
    qualityGate: o.settings.gate ?? 'regression',
    backend: o.backendName,
    repetitions: o.repetitions,
    combos,
  })
  // Held while this process measures: a resume elsewhere then refuses unless this process is gone.
  const hold = await holdRun(o.store, run.id, { force: o.session.force ?? false })
  let result: R | undefined
  let finished: Run
  try {
    const signal = o.session.signal
    finished = await executeRun(run.id, { store: o.store, registry: defaultRegistry(), ownerId: hold.owner.id, ...(signal ? { signal } : {}), ...(o.onEvent ? { onEvent: o.onEvent } : {}) }, {
      ...(o.backend ? { backend: o.backend } : {}),
      onResult: (r) => { if (o.is(r)) result = r },
      ...(o.deadline === undefined ? {} : { deadline: o.deadline }),
      ...(o.onRound ? { onRound: (p: InterleavedSweepResult) => o.onRound!({ ...p, runId: run.id }) } : {}),
    })
  } finally {
    await hold.release()
  }
  if (finished.status === 'queued') {
    const done = finished.progress
    const kept = o.design === 'interleaved' ? `run ${run.id} starts its rounds again when resumed` : `after ${done.done} of ${done.total} combinations; run ${run.id} keeps them`
    throw new KerneltuneError('CANCELLED', `the sweep was interrupted ${kept}: continue it with ${resumeCommandOf(run.id)} (or kerneltune run resume ${run.id})`, { details: { runId: run.id, resume: resumeCommandOf(run.id), interrupted: true } })
  }
  // The executor throws when the design fails (onResult set): without a result here, the design ran was not the one asked for.
  if (!result) throw new KerneltuneError('INTERNAL', `run ${run.id} finished without a ${o.design} result`)
  const verdict = (finished.summary as { verdict?: RunVerdict } | null)?.verdict
  if (!verdict) throw new KerneltuneError('INTERNAL', `run ${run.id} finished without a verdict`)
  return { runId: run.id, result, decided: decidedOf(result, verdict, await o.store.runs.combos(run.id)) }
}

function decidedOf(r: InterleavedSweepResult | SweepResult, verdict: RunVerdict, combos: readonly RunCombo[]): SweepDecision {
  const hash = verdict.kind === 'winner' ? combos.find((c) => c.index === verdict.index)?.comboHash : undefined
  const winner = hash === undefined ? undefined : (r.combos as readonly (InterleavedSweepResult['combos'][number] | SweepResult['combos'][number])[]).find((c) => c.hash === hash)
  return { verdict, winner, recommendedArgv: verdict.recommendedArgv ?? null }
}

/** The stored run a resume continues: a sweep's, not finished, with the same combinations as the plan made from its stored flags. */
async function resumable(store: Store, runId: string, hashes: readonly string[]): Promise<Run> {
  const run = await store.runs.require(null, runId)
  if (run.status === 'succeeded' || run.status === 'failed' || run.status === 'cancelled') {
    throw new KerneltuneError('CONFLICT', `run ${runId} has ${run.status}: there is nothing to resume (kerneltune run show ${runId})`)
  }
  const stored = (await store.runs.combos(runId)).map((c) => c.comboHash)
  if (stored.length !== hashes.length || stored.some((h, i) => h !== hashes[i])) {
    throw new KerneltuneError('CONFLICT', `run ${runId}'s combinations are not the ones its stored flags plan now (${stored.length} stored, ${hashes.length} planned): the catalog or the engine's rules changed since; start a new sweep`)
  }
  return run
}
