/**
 * The `sweep` command's path for `--backend server` and `--design interleaved`: plans the space
 * (the serving space, with slots and continuous batching, for the server backend), measures it
 * through the tuner as a stored run (sweep-run.ts) and prints the interleaved report. sweep.ts
 * calls it; it imports nothing from sweep.ts (no cycle), and reads the flags typed. Under
 * --time-budget the rounds and the capacity searches share the command's budget (@kerneltune/experiment's time-budget.ts),
 * and --out gets the result so far after every round and search (sweep-out.ts).
 */
import type { SweepMode, SweepSpace } from '@kerneltune/engines-llamacpp'
import { SWEEP_GATE_DEFAULTS, type InterleavedSweepResult, type SweepResult } from '@kerneltune/experiment'
import type { HardwareSpec } from '@kerneltune/core'
import type { Store } from '@kerneltune/store'
import type { CommandContext } from '../cli/command.ts'
import { fmt, progressBar } from '../cli/output.ts'
import type { SWEEP_FLAGS } from './sweep-flags.ts'
import { planSweep, renderSweep, SWEEP_DEFAULTS } from './sweep-plan.ts'
import { usageError } from '../cli/args.ts'
import { serverTarget } from './bench/serve-target.ts'
import { objectivesFromFlags, writeRecords } from './shared/objectives-flags.ts'
import { readStoredObjectives, storedRecords, sweepCapacity, sweepObjectivesOutput, type CapacityReport, type StoredObjectives } from './sweep-objectives.ts'
import { executeServerSweep, planServingSweep, renderInterleaved } from './sweep-server.ts'
import { decisionJson, decisionText, sweepAsRun, type SweepDecision, type SweepSession } from './sweep-run.ts'
import { budgetJson, budgetText, planBudget } from '@kerneltune/experiment'
import { openOutFile } from './sweep-out.ts'

export interface ServerRunInput {
  readonly store: Store
  readonly modelPath: string
  readonly modelBytes: number
  readonly mode: SweepMode
  readonly override: SweepSpace | undefined
  readonly hardware: HardwareSpec
  readonly cores: number
  readonly session: SweepSession
  /** When the command started (Date.now() clock): --time-budget counts from it. */
  readonly startedAt: number
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
  const budget = f.timeBudget === undefined ? undefined : planBudget(f.timeBudget, i.startedAt, Boolean(f.capacity))
  // Opened (and first written) before anything is measured: a path that cannot be written is refused now, not after the rounds.
  const out = f.out === undefined ? undefined : await openOutFile(ctx.io, f.out)
  const load = { concurrency: f.concurrency ?? 4, requests: f.requests ?? 8, promptTokens, outputTokens }

  /**
   * The --json document: the result so far (--out after each round: the design's, before any
   * verdict) or, once the run is stored, with its verdict and what the run judged by the objectives.
   */
  const documentOf = (r: (InterleavedSweepResult | SweepResult) & { runId: string }, stored: { decided: SweepDecision; objectives: StoredObjectives | undefined } | undefined, capacity: readonly CapacityReport[] | undefined, roundsEndedAt: number | undefined, phase: 'rounds' | 'capacity' | 'done') => {
    const byObjectives = objectives && stored?.objectives ? sweepObjectivesOutput(r, objectives, stored.objectives, capacity) : undefined
    const ended = roundsEndedAt ?? Date.now()
    return {
      byObjectives,
      json: {
        ok: true, ...(phase === 'done' ? {} : { partial: true, phase }), engine: 'llamacpp', ...r, design, ...(stored ? decisionJson(r, stored.decided) : { winner: r.winner ?? null }), ...(byObjectives?.json ?? {}),
        model: { path: i.modelPath, bytes: i.modelBytes }, mode: i.mode, space: plan.space, catalog: plan.catalog, pruned: plan.pruned,
        ...(server ? { load } : { workload: { promptTokens, genTokens: outputTokens } }),
        ...(budget && isInterleaved(r) ? { budget: budgetJson(budget, r, { roundsEndedAt: ended, ...(capacity ? { capacity } : {}) }) } : {}),
        seconds: (Date.now() - i.startedAt) / 1000,
      },
    }
  }
  const onRound = out ? async (p: InterleavedSweepResult & { runId: string }) => out.write(documentOf(p, undefined, undefined, undefined, 'rounds').json) : undefined

  ctx.io.stderr(`sweeping ${plan.candidates.length} combinations (${plan.pruned.length} removed by llama.cpp's rules) against the defaults, ${i.mode} mode, ${design} design, ${server ? `llama-server under ${load.concurrency} concurrent requests` : 'node-llama-cpp in-process'}${budget ? `, time budget ${fmt(budget.seconds, 0)} s (the rounds until ${fmt((budget.roundsDeadlineAt - i.startedAt) / 1000, 1)} s)` : ''}\n`)
  let r: (InterleavedSweepResult | SweepResult) & { runId: string; decided: SweepDecision }
  const deadline = budget ? { deadline: budget.roundsDeadlineAt } : {}
  if (server) {
    r = await executeServerSweep(ctx.io, {
      store: i.store, hardware: i.hardware, modelPath: i.modelPath, modelBytes: i.modelBytes, plan, design, ...load,
      rounds, ...deadline, ...(onRound ? { onRound } : {}), warmups: f.warmup ?? 1, seed: f.seed ?? 1, test, gate, metric, epsilon, margin,
      session: i.session, ...(objectives ? { objectives } : {}), prelaunch: f.prelaunch !== 'off',
    })
  } else {
    // The composed node-llama-cpp backend runs the CPU build: only a GPU build is brought here.
    const gpu = f.gpu === 'off' || f.gpu === undefined ? false : f.gpu
    const backend = gpu ? (await import('@kerneltune/engines-llamacpp/node')).llamacppBackend({ modelPath: i.modelPath, gpu }) : undefined
    const arms = plan.candidates.length + 2
    const bar = progressBar(ctx.io, 'sweep (interleaved)', rounds * arms)
    const { runId, result, decided } = await sweepAsRun({
      store: i.store, modelPath: i.modelPath, hardware: i.hardware, plan, design: 'interleaved', backendName: 'node-llama-cpp', ...(backend ? { backend } : {}),
      workload: { batch: 1, promptTokens, generatedTokens: outputTokens }, repetitions: rounds, warmups: f.warmup ?? 1,
      settings: { model: i.modelPath, gate, metric, epsilon, margin, warmups: f.warmup ?? 1, rounds, seed: f.seed ?? 1, test },
      ...deadline, ...(onRound ? { onRound } : {}),
      is: (x): x is InterleavedSweepResult => 'aa' in x, session: i.session,
      onEvent: (e) => e.type === 'progress' && bar.update(e.done, `round ${Math.ceil(e.done / arms)}`),
    })
    r = { ...result, runId, decided }
    bar.done()
  }
  // The rounds' run is stored and their servers stopped: what follows is the capacity searches and the report.
  const roundsEndedAt = Date.now()
  // What the stored run judged by the objectives (its verdict decides; the design's choice stays in the JSON as gateWinner).
  const { decided, ...result } = r
  const judged = objectives || f.records ? await readStoredObjectives(i.store, r.runId, objectives ?? { slo: [], objective: { kind: 'throughput', name: 'outputTokensPerSecond', direction: 'max' } }) : undefined
  const stored = { decided, objectives: judged }
  if (f.records && judged) {
    const records = storedRecords(judged)
    ctx.io.stderr(`${records.length} request records written to ${await writeRecords(ctx.io, f.records, records)}\n`)
  }
  let capacity: CapacityReport[] | undefined
  if (f.capacity && objectives && judged) {
    const onSearch = out ? async (done: readonly CapacityReport[]) => out.write(documentOf(result, stored, done, roundsEndedAt, 'capacity').json) : undefined
    capacity = await sweepCapacity(ctx.io, serverTarget(ctx.io, { gguf: i.modelPath }), judged, objectives, f.capacityBy === 'concurrency' ? 'concurrency' : 'req/s', load,
      budget ? { deadlineAt: budget.deadlineAt, ...(isInterleaved(r) ? { leastMs: r.longestVisitMs } : {}), ...(onSearch ? { onSearch } : {}) } : undefined)
  }
  const { byObjectives, json } = documentOf(result, stored, capacity, roundsEndedAt, 'done')
  await out?.write(json, true)
  if (ctx.json) {
    ctx.printJson(json)
  } else {
    if (byObjectives) ctx.io.stdout((isInterleaved(result) ? renderInterleaved(result, '') : renderSweep(result, '')) + byObjectives.text + decisionText(decided))
    else ctx.io.stdout(isInterleaved(result) ? renderInterleaved(result, decisionText(decided)) : renderSweep(result, decisionText(decided)))
    if (budget && isInterleaved(r)) ctx.io.stdout(`${budgetText(budget, r, { roundsEndedAt, ...(capacity ? { capacity } : {}) })}\n`)
    ctx.io.stdout(`${r.combos.length} combinations measured in ${fmt(json.seconds, 1)} s; ${plan.pruned.length} removed by rules; stored as run ${r.runId} (kerneltune run show ${r.runId})\n`)
  }
  // 0: the run's verdict names a setting to change; 3: the defaults stay (the verdict says why).
  return decided.verdict.kind === 'winner' ? 0 : 3
}
