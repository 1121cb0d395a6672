/**
 * The `sweep` command's path for `--backend server` and `--design interleaved`: plans the space
 * (the serving space, with slots and continuous batching, for the server backend), measures it
 * through the tuner as a stored run (sweep-run.ts) and prints the interleaved report. sweep.ts
 * calls it; it imports nothing from sweep.ts (no cycle), and reads the flags typed.
 */
import { llamacppEngine, withoutDefaults, type SweepMode, type SweepSpace } from '@kerneltune/engines-llamacpp'
import { SWEEP_GATE_DEFAULTS, type InterleavedSweepResult, type SweepResult } from '@kerneltune/experiment'
import { llamacppBackend } from '@kerneltune/engines-llamacpp/node'
import type { HardwareSpec } from '@kerneltune/core'
import type { Store } from '@kerneltune/store'
import type { CommandContext } from '../cli/command.ts'
import { fmt, progressBar } from '../cli/output.ts'
import type { SWEEP_FLAGS } from './sweep-flags.ts'
import { planSweep, renderSweep, SWEEP_DEFAULTS } from './sweep-plan.ts'
import { usageError } from '../cli/args.ts'
import { serverTarget } from './bench/serve-target.ts'
import { objectivesFromFlags, writeRecords } from './shared/objectives-flags.ts'
import { assessSweep, createRunCollector, sweepCapacity, sweepObjectivesOutput } from './sweep-objectives.ts'
import { executeServerSweep, planServingSweep, renderInterleaved } from './sweep-server.ts'
import { sweepAsRun, type SweepSession } from './sweep-run.ts'

export interface ServerRunInput {
  readonly store: Store
  readonly modelPath: string
  readonly modelBytes: number
  readonly mode: SweepMode
  readonly override: SweepSpace | undefined
  readonly hardware: HardwareSpec
  readonly cores: number
  readonly session: SweepSession
}

const isInterleaved = (r: InterleavedSweepResult | SweepResult): r is InterleavedSweepResult => (r as InterleavedSweepResult).design === 'interleaved'

export async function runServerOrInterleaved(ctx: CommandContext<typeof SWEEP_FLAGS>, i: ServerRunInput): Promise<number> {
  const f = ctx.flags
  const server = f.backend === 'server'
  const design = f.design ?? (server ? 'interleaved' : 'sequential')
  const test = f.test ?? 'sign-flip'
  const plan = server ? planServingSweep(i.mode, i.hardware, i.cores, i.override) : planSweep(i.mode, i.hardware, i.cores, i.override)
  const d = SWEEP_DEFAULTS[i.mode]
  // The sign-flip test needs 7 rounds to reach p < 0.05 at all (minRoundsToDecide).
  const rounds: number = f.rounds ?? (i.mode === 'quick' ? 8 : 12)
  const gate = f.gate ?? SWEEP_GATE_DEFAULTS.gate
  const metric = f.metric ?? 'decodeTps'
  const epsilon: number = f.epsilon ?? SWEEP_GATE_DEFAULTS.epsilon
  const margin: number = f.margin ?? SWEEP_GATE_DEFAULTS.margin
  const promptTokens: number = f.promptTokens ?? d.promptTokens
  const outputTokens: number = f.genTokens ?? d.genTokens
  // Latency objectives (issue 25) read each request under load: the server backend only.
  const objectives = objectivesFromFlags(f)
  if ((objectives || f.records || f.capacity) && !server) throw usageError('--slo, --objective, --records and --capacity judge requests under serving load: add --backend server')
  if (f.capacity && !objectives?.slo.length) throw usageError('--capacity finds the load at which the objectives stop holding: state them with --slo, e.g. --slo ttft_p99_ms=500,tpot_p99_ms=50')
  const collector = objectives || f.records ? createRunCollector() : undefined
  const started = Date.now()
  ctx.io.stderr(`sweeping ${plan.candidates.length} combinations (${plan.pruned.length} removed by llama.cpp's rules) against the defaults, ${i.mode} mode, ${design} design, ${server ? `llama-server under ${f.concurrency ?? 4} concurrent requests` : 'node-llama-cpp in-process'}\n`)
  let r: (InterleavedSweepResult | SweepResult) & { runId: string }
  if (server) {
    r = await executeServerSweep(ctx.io, {
      store: i.store, hardware: i.hardware, modelPath: i.modelPath, modelBytes: i.modelBytes, plan, design, concurrency: f.concurrency ?? 4, requests: f.requests ?? 8, promptTokens, outputTokens,
      rounds, ...(f.timeBudget === undefined ? {} : { timeBudgetMs: f.timeBudget * 1000 }), warmups: f.warmup ?? 1, seed: f.seed ?? 1, test, gate, metric, epsilon, margin,
      ...(collector ? { onSession: collector.onSession } : {}), session: i.session, ...(objectives ? { objectives } : {}), prelaunch: f.prelaunch !== 'off',
    })
  } else {
    const backend = llamacppBackend({ modelPath: i.modelPath, gpu: f.gpu === 'off' || f.gpu === undefined ? false : f.gpu, promptTokens, genTokens: outputTokens })
    const arms = plan.candidates.length + 2
    const bar = progressBar(ctx.io, 'sweep (interleaved)', rounds * arms)
    const { runId, result } = await sweepAsRun({
      store: i.store, modelPath: i.modelPath, hardware: i.hardware, plan, design: 'interleaved', backendName: 'node-llama-cpp', backend, engine: llamacppEngine(), withoutDefaults,
      workload: { batch: 1, promptTokens, generatedTokens: outputTokens }, repetitions: rounds, warmups: f.warmup ?? 1,
      settings: { model: i.modelPath, gate, metric, epsilon, margin, warmups: f.warmup ?? 1, rounds, seed: f.seed ?? 1, test, ...(f.timeBudget === undefined ? {} : { timeBudgetMs: f.timeBudget * 1000 }) },
      is: (x): x is InterleavedSweepResult => 'aa' in x, session: i.session,
      onEvent: (e) => e.type === 'progress' && bar.update(e.done, `round ${Math.ceil(e.done / arms)}`),
    })
    r = { ...result, runId }
    bar.done()
  }
  // Objectives decide instead of the gate when stated; the gate's choice stays in the JSON as gateWinner.
  const sweepObj = collector ? await assessSweep(collector, r.baseline.combo, r.combos, objectives ?? { slo: [], objective: { kind: 'throughput', name: 'outputTokensPerSecond', direction: 'max' } }, isInterleaved(r), i.modelPath) : undefined
  if (f.records && sweepObj) ctx.io.stderr(`${sweepObj.records.length} request records written to ${await writeRecords(ctx.io, f.records, sweepObj.records)}\n`)
  const capacity = f.capacity && objectives && sweepObj ? await sweepCapacity(ctx.io, serverTarget(ctx.io, { gguf: i.modelPath }), sweepObj, objectives, f.capacityBy === 'concurrency' ? 'concurrency' : 'req/s', { requests: f.requests ?? 8, promptTokens, outputTokens }) : undefined
  const byObjectives = objectives && sweepObj ? sweepObjectivesOutput(r, objectives, sweepObj, capacity) : undefined
  const seconds = (Date.now() - started) / 1000
  if (ctx.json) {
    ctx.printJson({
      ok: true, engine: 'llamacpp', ...r, design, winner: r.winner ?? null, ...(byObjectives?.json ?? {}),
      model: { path: i.modelPath, bytes: i.modelBytes }, mode: i.mode, space: plan.space, catalog: plan.catalog, pruned: plan.pruned,
      ...(server ? { load: { concurrency: f.concurrency ?? 4, requests: f.requests ?? 8, promptTokens, outputTokens } } : { workload: { promptTokens, genTokens: outputTokens } }),
      seconds,
    })
  } else {
    ctx.io.stdout(isInterleaved(r) ? renderInterleaved(r) : renderSweep(r))
    if (byObjectives) ctx.io.stdout(byObjectives.text)
    ctx.io.stdout(`${r.combos.length} combinations measured in ${fmt(seconds, 1)} s; ${plan.pruned.length} removed by rules; stored as run ${r.runId} (kerneltune run show ${r.runId})\n`)
  }
  return (byObjectives ? byObjectives.hasWinner : r.winner) ? 0 : 3
}
