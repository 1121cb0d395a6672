/**
 * `kerneltune sweep` on a GGUF model (moved out of the CLI, issue 36): plans the space (the
 * in-process one, or the serving space with slots and continuous batching for the server backend),
 * stores it as a run and measures it through the tuner's executeRun with the composed registry,
 * as the server's queue does (run.node.ts). The server backend is told by the stored run how many
 * requests each repetition sends and which servers stay up across rounds (options.serving), so no
 * pool is built here. Under --time-budget the rounds and the capacity searches share the command's
 * budget, and --out gets the result so far after every round and search.
 */
import { serverSweepSettings } from '@kerneltune/backends/node'
import { KerneltuneError, requireServing } from '@kerneltune/core'
import { budgetJson, budgetText, planBudget, SWEEP_GATE_DEFAULTS, type InterleavedSweepResult, type SweepResult } from '@kerneltune/experiment'
import { requireServerBinary, type ServerTarget } from '@kerneltune/serving/node'
import { defaultRegistry } from '../compose.node.ts'
import { readStoredObjectives, storedRecords, sweepCapacity, sweepObjectivesOutput, type CapacityReport, type StoredObjectives } from './objectives.node.ts'
import { openOutFile } from './out.node.ts'
import { parseSpace, planServingSweep, planSweep, SWEEP_DEFAULTS, type SweepMode, type SweepPlan } from './plan.ts'
import { SWEEP_GGUF_ENGINE } from './space.ts'
import { decisionJson, decisionText, isInterleaved, launchNote, planOutcome, renderInterleaved, renderSweep, roundTiming, type SweepDecision } from './report.ts'
import { sweepAsRun } from './run.node.ts'
import type { SweepInput, SweepOutcome } from './session.ts'

export interface GgufModel {
  readonly path: string
  readonly bytes: number
}

/** The engine as the registry composes it: its serving capability launches its servers. */
const engineOf = (name: string) => defaultRegistry().get('engine', name)

/** The engine's server for a capacity search, launched by its serving capability. */
function capacityTarget(name: string, model: string): ServerTarget {
  const engine = engineOf(name)
  return { kind: 'engine', engine, binary: requireServerBinary(engine.name, requireServing(engine)).path, model }
}

/** An engine measured as its own server with a plan of its own (served.node.ts), instead of the GGUF engine's. */
export interface ServedSweep {
  readonly engine: string
  readonly version: string
  readonly plan: SweepPlan
}

/** `model` finds the model file (the command's --gguf), once the flags are known to go together and the plan is made (--plan stops there). */
export async function sweepGguf(i: SweepInput, model: () => Promise<GgufModel>, served?: ServedSweep): Promise<SweepOutcome> {
  const f = i.flags
  const refuse = (message: string) => new KerneltuneError('INVALID_INPUT', message)
  const server = served !== undefined || f.backend === 'server'
  const engineName = served?.engine ?? SWEEP_GGUF_ENGINE
  const design = f.design ?? (server ? 'interleaved' : 'sequential')
  // The sequential design measures each combination to --reps: it has no rounds a budget could end, nor results after each.
  if (design === 'sequential' && (f.timeBudget !== undefined || f.out !== undefined)) throw refuse(`${f.timeBudget !== undefined ? '--time-budget' : '--out'} is for the interleaved design: add --design interleaved (or --backend server)`)
  const mode: SweepMode = f.quick ? 'quick' : 'standard'
  const override = f.space ? parseSpace(f.space) : undefined
  const plan = served?.plan ?? (server ? planServingSweep(mode, i.hardware, i.cores, override) : planSweep(mode, i.hardware, i.cores, override))
  if (f.plan) return planOutcome(i.io.text, engineName, plan)
  const m = await model()
  const d = SWEEP_DEFAULTS[mode]
  const rounds = f.rounds ?? d.rounds
  const maxReps = f.reps ?? d.maxReps
  const test = f.test ?? 'sign-flip'
  const warmups = f.warmup ?? 1
  const gates = { gate: f.gate ?? SWEEP_GATE_DEFAULTS.gate, metric: f.metric ?? 'decodeTps', epsilon: f.epsilon ?? SWEEP_GATE_DEFAULTS.epsilon, margin: f.margin ?? SWEEP_GATE_DEFAULTS.margin } as const
  const promptTokens = f.promptTokens ?? d.promptTokens
  const outputTokens = f.genTokens ?? d.genTokens
  // Latency objectives (issue 25) read each request under load: the server backend only.
  const objectives = i.objectives
  if ((objectives || f.records || f.capacity) && !server) throw refuse('--slo, --objective, --records and --capacity judge requests under serving load: add --backend server')
  if (f.capacity && !objectives?.slo.length) throw refuse('--capacity finds the load at which the objectives stop holding: state them with --slo, e.g. --slo ttft_p99_ms=500,tpot_p99_ms=50')
  const budget = f.timeBudget === undefined ? undefined : planBudget(f.timeBudget, i.startedAt, Boolean(f.capacity))
  // Opened (and first written) before anything is measured: a path that cannot be written is refused now, not after the rounds.
  const out = f.out === undefined ? undefined : await openOutFile(i.io, f.out)
  const load = { concurrency: f.concurrency ?? 4, requests: f.requests ?? 8, promptTokens, outputTokens }
  const session = { spec: i.specOf({ ...f, gguf: m.path }), force: i.force, signal: i.signal, ...(i.resumeRunId ? { resumeRunId: i.resumeRunId } : {}) }
  const t = i.io.text

  /** The --json document: the result so far (--out after each round, before any verdict) or, once the run is stored, with its verdict and what it judged by the objectives. */
  const documentOf = (r: (InterleavedSweepResult | SweepResult) & { runId: string }, stored: { decided: SweepDecision; objectives: StoredObjectives | undefined } | undefined, capacity: readonly CapacityReport[] | undefined, roundsEndedAt: number | undefined, phase: 'rounds' | 'capacity' | 'done') => {
    const byObjectives = objectives && stored?.objectives ? sweepObjectivesOutput(t, r, objectives, stored.objectives, capacity) : undefined
    return {
      byObjectives,
      json: {
        ok: true, ...(phase === 'done' ? {} : { partial: true, phase }), engine: engineName, ...r, design, ...(stored ? decisionJson(r, stored.decided) : { winner: r.winner ?? null }), ...(byObjectives?.json ?? {}),
        model: { path: m.path, bytes: m.bytes }, mode, space: plan.space, catalog: plan.catalog, pruned: plan.pruned,
        ...(server ? { load } : { workload: { promptTokens, genTokens: outputTokens } }),
        ...(budget && isInterleaved(r) ? { budget: budgetJson(budget, r, { roundsEndedAt: roundsEndedAt ?? Date.now(), ...(capacity ? { capacity } : {}) }) } : {}),
        seconds: (Date.now() - i.startedAt) / 1000,
      },
    }
  }
  const onRound = out ? async (p: InterleavedSweepResult & { runId: string }) => out.write(documentOf(p, undefined, undefined, undefined, 'rounds').json) : undefined

  const arms = plan.candidates.length + (design === 'interleaved' ? 2 : 1)
  const s = server ? serverSweepSettings({ design, arms: plan.candidates.length + 2, modelBytes: m.bytes, hardwareKind: i.hardware.kind, prelaunch: f.prelaunch !== 'off', warmups, requests: load.requests }) : undefined
  const kept = s?.serving.keepServers ?? 1
  const what = server ? `the engine's server under ${load.concurrency} concurrent requests` : 'in-process'
  i.io.stderr(`sweeping ${plan.candidates.length} combinations (${plan.pruned.length} removed by the engine's rules) against the defaults, ${mode} mode, ${design} design, ${what}${budget ? `, time budget ${t.fmt(budget.seconds, 0)} s (the rounds until ${t.fmt((budget.roundsDeadlineAt - i.startedAt) / 1000, 1)} s)` : ''}\n`)
  if (s && design === 'interleaved' && kept < arms) i.io.stderr(`memory holds ${kept} of the ${arms} arms' servers at once: the others are stopped and relaunched as the rounds visit them (slower, and launch-to-launch variance enters the comparison)\n`)
  // The composed in-process backend runs the CPU build; a GPU build is the one thing it cannot be told by the stored run.
  const gpu = server || f.gpu === 'off' || f.gpu === undefined ? undefined : f.gpu
  const backend = gpu ? (await import('@kerneltune/engines-llamacpp/node')).llamacppBackend({ modelPath: m.path, gpu }) : undefined
  const bar = i.io.progress(`sweep${server ? ` (server, ${design})` : design === 'interleaved' ? ' (interleaved)' : ''}`, design === 'interleaved' ? rounds * arms : arms)
  const common = { model: m.path, ...gates, warmups }
  const { runId, result, decided } = await sweepAsRun({
    ...(served ? { target: { engine: served.engine, engineVersion: served.version } } : {}),
    store: i.store, modelPath: m.path, hardware: i.hardware, plan, design, backendName: server ? 'server' : 'node-llama-cpp', ...(backend ? { backend } : {}), ...(s ? { serving: s.serving } : {}),
    workload: { batch: server ? load.concurrency : 1, promptTokens, generatedTokens: outputTokens }, warmups, session, ...(objectives ? { objectives } : {}),
    repetitions: design === 'interleaved' ? rounds : server ? 5 : maxReps,
    settings: design === 'interleaved'
      ? {
          ...common, rounds, seed: f.seed ?? 1, test,
          // Servers kept up between visits need no warm-up on a revisit; the A/A arm gets a server of its own under a key of its own (cont_batching=on writes no flag).
          ...(s ? { revisitWarmups: s.revisitWarmups, prelaunch: s.prelaunch, ...(served ? {} : { aaCombo: { cont_batching: 'on' } }) } : {}),
        }
      : server ? common : { ...common, minReps: Math.min(maxReps, f.minReps ?? d.minReps), maxReps, earlyStop: f.noEarlyStop !== true, noiseFloor: f.noiseFloor ?? 0.05 },
    ...(budget ? { deadline: budget.roundsDeadlineAt } : {}), ...(onRound ? { onRound } : {}),
    is: (x): x is InterleavedSweepResult | SweepResult => (design === 'interleaved') === isInterleaved(x),
    onEvent: (e) => e.type === 'progress' && bar.update(e.done, design === 'interleaved' ? `round ${Math.ceil(e.done / arms)}` : `${e.done}/${e.total}`),
  })
  bar.done()
  const timing = s && isInterleaved(result) ? roundTiming(t, result, s.serving.parallelLaunches) : undefined
  const r = s && isInterleaved(result) ? { ...result, runId, notes: [...result.notes, launchNote(result, arms, kept, engineOf(engineName).serving?.binary.program), ...(timing ? [timing] : [])] } : { ...result, runId }
  // The rounds' run is stored and their servers stopped: what follows is the capacity searches and the report.
  const roundsEndedAt = Date.now()
  const judged = objectives || f.records ? await readStoredObjectives(i.store, runId, objectives ?? { slo: [], objective: { kind: 'throughput', name: 'outputTokensPerSecond', direction: 'max' } }) : undefined
  const stored = { decided, objectives: judged }
  if (f.records && judged && i.writeRecords) {
    const records = storedRecords(judged)
    i.io.stderr(`${records.length} request records written to ${await i.writeRecords(records)}\n`)
  }
  let capacity: CapacityReport[] | undefined
  if (f.capacity && objectives && judged) {
    const onSearch = out ? async (done: readonly CapacityReport[]) => out.write(documentOf(r, stored, done, roundsEndedAt, 'capacity').json) : undefined
    capacity = await sweepCapacity(i.io, capacityTarget(engineName, m.path), judged, objectives, f.capacityBy === 'concurrency' ? 'concurrency' : 'req/s', load,
      budget ? { deadlineAt: budget.deadlineAt, ...(isInterleaved(r) ? { leastMs: r.longestVisitMs } : {}), ...(onSearch ? { onSearch } : {}) } : undefined)
  }
  const { byObjectives, json } = documentOf(r, stored, capacity, roundsEndedAt, 'done')
  await out?.write(json, true)
  const render = (decision: string) => (isInterleaved(r) ? renderInterleaved(t, r, decision) : renderSweep(t, r, decision))
  let text = byObjectives ? render('') + byObjectives.text + decisionText(decided) : render(decisionText(decided))
  if (budget && isInterleaved(r)) text += `${budgetText(budget, r, { roundsEndedAt, ...(capacity ? { capacity } : {}) })}\n`
  const rules = design === 'sequential' && !server ? ` (${[...new Set(plan.pruned.map((p) => p.rule))].join(', ') || 'none'})` : ''
  text += `${r.combos.length} combinations measured in ${t.fmt(json.seconds, 1)} s; ${plan.pruned.length} removed by rules${rules}; stored as run ${runId} (kerneltune run show ${runId})\n`
  // 0: the run's verdict names a setting to change; 3: the defaults stay (the verdict says why).
  return { code: decided.verdict.kind === 'winner' ? 0 : 3, json, text }
}
