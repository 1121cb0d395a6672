/**
 * `kerneltune sweep --engine llamacpp --gguf FILE [--quick]`: a Tier 1 sweep over llama.cpp
 * settings on this machine, from the embedded defaults (no server needed). The catalog enumerates
 * the sweep space with the engine's legality rules, every legal combination is measured for real
 * against llama-server's defaults, and the winner comes with its statistics and command line.
 */
import process from 'node:process'
import { KerneltuneError, type HardwareSpec } from '@kerneltune/core'
import { requireGgufFile } from './shared/target-flags.ts'
import type { SweepMode, SweepSpace } from '@kerneltune/engines-llamacpp'
import { SWEEP_GATE_DEFAULTS, type SweepMetric, type SweepResult } from '@kerneltune/experiment'
import type { GateMethod } from '@kerneltune/stats'
import type { Store } from '@kerneltune/store'
import type { CommandContext, Io } from '../cli/command.ts'
import { defineCommand } from '../cli/command.ts'
import { parseArgs, usageError } from '../cli/args.ts'
import { fmt, progressBar } from '../cli/output.ts'
import { SWEEP_FLAGS } from './sweep-flags.ts'
import { planSweep, renderSweep, SWEEP_DEFAULTS, type SweepPlan } from './sweep-plan.ts'
import { runServerOrInterleaved } from './sweep-server-run.ts'
import { runOnnxSweep } from './sweep-onnx.ts'
import { decisionJson, decisionText, sweepAsRun, type SweepDecision, type SweepSession } from './sweep-run.ts'
import { storedSweepSpec, sweepFlagsOf, sweepSpecOf } from './sweep-resume.ts'
import { INTERRUPT } from '@kerneltune/tuner'

export interface SweepRunOptions {
  /** Where the sweep's run is stored (the embedded store, or --db). */
  readonly store: Store
  readonly hardware: HardwareSpec
  readonly modelPath: string
  readonly plan: SweepPlan
  readonly gpu?: false | 'auto' | 'cuda' | 'vulkan'
  readonly promptTokens: number
  readonly genTokens: number
  readonly warmups: number
  readonly minReps: number
  readonly maxReps: number
  readonly earlyStop: boolean
  readonly noiseFloor: number
  readonly gate: GateMethod
  readonly metric: SweepMetric
  readonly epsilon: number
  readonly margin: number
  /** Told when the defaults are measured (the demo times that apart from the sweep). */
  readonly onBaselineDone?: () => void
  /** What the run stores to be resumed (the flags of a `kerneltune sweep` that plans the same), the run resumed, the interrupt. */
  readonly session: SweepSession
}

/** `--space` JSON: dimension → list of values (checked against the catalog by sweepSpace). */
export function parseSpace(json: string): SweepSpace {
  let v: unknown
  try {
    v = JSON.parse(json)
  } catch {
    throw new KerneltuneError('INVALID_INPUT', `--space is not JSON: ${json}`)
  }
  const ok = typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => Array.isArray(x) && x.every((y) => typeof y === 'string'))
  if (!ok) throw new KerneltuneError('INVALID_INPUT', `--space must map dimensions to lists of string values, e.g. {"threads":["1","2"]}; got ${json}`)
  return v as SweepSpace
}

/** Stores the plan as a run and measures it through the tuner (sequential design), with a progress bar on stderr (one step per combination, baseline first). */
export async function executeSweep(io: Io, o: SweepRunOptions): Promise<SweepResult & { runId: string; decided: SweepDecision }> {
  // The composed node-llama-cpp backend runs the CPU build; a GPU build is the one thing it cannot be told per run.
  const backend = o.gpu ? (await import('@kerneltune/engines-llamacpp/node')).llamacppBackend({ modelPath: o.modelPath, gpu: o.gpu }) : undefined
  const bar = progressBar(io, 'sweep', o.plan.candidates.length + 1)
  const { runId, result, decided } = await sweepAsRun({
    store: o.store, modelPath: o.modelPath, hardware: o.hardware, plan: o.plan, design: 'sequential', backendName: 'node-llama-cpp', ...(backend ? { backend } : {}),
    workload: { batch: 1, promptTokens: o.promptTokens, generatedTokens: o.genTokens }, repetitions: o.maxReps, warmups: o.warmups,
    settings: { model: o.modelPath, warmups: o.warmups, minReps: o.minReps, maxReps: o.maxReps, earlyStop: o.earlyStop, noiseFloor: o.noiseFloor, gate: o.gate, metric: o.metric, epsilon: o.epsilon, margin: o.margin },
    is: (r): r is SweepResult => !('aa' in r),
    session: o.session,
    onEvent: (e) => {
      if (e.type !== 'progress') return
      bar.update(e.done, `${e.done}/${e.total}`)
      if (e.done === 1) o.onBaselineDone?.()
    },
  })
  bar.done()
  return { ...result, runId, decided }
}

/**
 * `run resume` on a sweep's run: the sweep command with --resume (its stored flags, backend and
 * design). Undefined when the run is not a sweep's, for run resume's generic path.
 */
export async function resumeSweepRun(ctx: Omit<CommandContext, 'flags'>, runId: string, o: { db?: string; force: boolean }): Promise<number | undefined> {
  const store = await sweepStore(ctx.io, o.db)
  let spec
  try {
    spec = storedSweepSpec(await store.runs.require(null, runId))
  } finally {
    await store.close()
  }
  if (!spec) return undefined
  const defaults = parseArgs([], SWEEP_FLAGS).flags as CommandContext<typeof SWEEP_FLAGS>['flags']
  return sweepCommand.run!({ ...ctx, flags: { ...defaults, resume: runId, force: o.force, ...(o.db ? { db: o.db } : {}) } }) as Promise<number>
}

/** The store a sweep's run goes to: --db (as the run commands read it), else the embedded store every command uses. */
export async function sweepStore(io: Io, db: string | undefined): Promise<Store> {
  const { defaultDatabaseUrl, openStoreAt } = await import('@kerneltune/compose/node')
  return openStoreAt(db ?? defaultDatabaseUrl(io.env))
}

export const sweepCommand = defineCommand({
  name: 'sweep',
  summary: 'Sweep llama.cpp (or ONNX Runtime CPU) settings on this machine for real, with statistics against the defaults and a quality gate.',
  description:
    'Stores the sweep as a run (in the embedded store, or --db) that the tuner measures, so it is listed in History and `kerneltune run show` reads it. Enumerates llama.cpp settings through the catalog (with the engine\'s legality rules), measures the defaults and then every legal combination through node-llama-cpp, with warm-ups, repetitions and early termination, compares each to the defaults (10% trimmed means, Welch/Yuen test, Cohen\'s d) on decode and prefill tokens/s and time to first token, applies a quality gate and names the winner: the fastest combination (by --metric) that passes the gate and is significantly better than the defaults. Quick mode sweeps threads x flash attention x V cache type; standard adds the micro-batch and K cache type. The default gate is regression: no gated metric may be worse than the defaults by more than --epsilon. Interrupted (SIGINT) or killed, the run keeps what it measured: --resume RUN_ID (or kerneltune run resume RUN_ID) continues it with the flags it stored. --engine onnx sweeps ONNX Runtime\'s CPU execution provider instead (intra-op threads x MatMulNBits accuracy in quick mode; standard adds the execution mode and thread spinning), one onnxruntime-node InferenceSession per combination, interleaved by default, on --onnx FILE or a llama of --params (default 1B, 4-bit MatMulNBits) synthesized once into $XDG_CACHE_HOME/kerneltune/onnx; it prints the roofline bound of the model on this machine beside the measured defaults, as a prediction, and the run\'s verdict. Exit 0: a setting to change; 3: the defaults stay.',
  flags: SWEEP_FLAGS,
  examples: [
    'kerneltune model synth --params 15M --quant Q8_0 --vocab-size 2048 --out /tmp/m.gguf && kerneltune sweep --engine llamacpp --gguf /tmp/m.gguf --quick',
    'kerneltune sweep --engine llamacpp --gguf /tmp/m.gguf --backend server --quick --concurrency 4',
    'kerneltune sweep --gguf m.gguf --gate topk5 --reps 10 --json',
    'kerneltune sweep --gguf m.gguf --quick --space \'{"threads":["1","2"],"cache_type_k":["f16","q8_0"]}\'',
    'kerneltune sweep --resume RUN_ID',
    'kerneltune sweep --engine onnx --backend onnxruntime --params 1B --quick',
    'kerneltune sweep --engine onnx --onnx decoder.onnx --design sequential --json',
  ],
  jsonOutput:
    'With --engine onnx: { ok, runId, engine: "onnx", ortVersion, backend: "onnxruntime", design, device, baseline, combos, winner | null, verdict: RunVerdict (kind, headline, reasons, figures), designVerdict, recommended: { combo, sessionOptions }, model: { path, bytes, synthesized, spec? }, mode, space, catalog, workload, roofline: { kind: "prediction", hardware, decode: { boundTps, binding, measuredDefaultsTps, fraction }, prefill: {...} } | null, seconds, ... }. Both llama.cpp forms carry runId: the stored run (kerneltune run show RUN_ID, the dashboard\'s History). With --backend server or --design interleaved: { ok, runId, engine, backend, design: "interleaved", device, rounds, partialRound, order, roundSeconds, prepareSeconds?, launches: { [arm]: [{ reason, ok, error?, phases: { spawnedAt, setupMs, listeningMs?, modelLoadedMs?, readyMs?, warmupStartMs?, warmupEndMs?, warmupRequests? } }] }, metric, baseline, combos: [{ combo, reps, error?, stats, comparison, paired: { decodeTps?, prefillTps?, ttftMs? } }], aa: { comparison, declaredWinner, falseWinnerRate, resamples, reps }, winner | null, verdict: RunVerdict, designVerdict, recommendedArgv | null, load: { concurrency, requests, promptTokens, outputTokens }, settings, seconds, budgetEnded, longestVisitMs, budget?: { seconds, startedAt, ended, endedIn: rounds | capacity | null, rounds: { untilS, endedAtS, ended, measured, planned, partialRound, longestVisitS }, capacity: { untilS, searches: [{ candidate, untilS, endedAtS, ended, measurements, longestMeasurementS }] } | null, longestMeasurementS, elapsedS, note } (with --time-budget), ... }; --out FILE gets the same document, and after every round and capacity search the result so far with partial: true, phase: rounds | capacity. Otherwise: { ok, runId, engine: "llamacpp", measured: true, simulated: false, device, model: { path, bytes }, mode, space, catalog: { version, hash }, pruned: [{ combo, rule }], workload: { promptTokens, genTokens }, settings: { warmups, minReps, maxReps, earlyStop, noiseFloor }, metric, baseline: { combo, hash, reps, stats }, combos: [{ combo, hash, reps, stoppedEarly?, error?, stats, comparison: { decodeTps?, prefillTps?, ttftMs? }, gate }], gate: GateResult, winner: { combo, hash, reps, stats, comparison, gate, argv (its command line) } | null, verdict: RunVerdict (the one verdict the run stores: kind, index, headline, reasons, figures, recommendedArgv), designVerdict, recommendedArgv | null (the verdict\'s; null when withheld), notes, seconds }. Interrupted: { ok: false, error: { code: "CANCELLED", message, details: { runId, resume: "kerneltune sweep --resume RUN_ID", interrupted: true } } }',
  async run(ctx) {
    // --time-budget counts from here: opening the store and planning are part of the command.
    const startedAt = Date.now()
    const store = await sweepStore(ctx.io, ctx.flags.db)
    // SIGINT leaves the run queued with what it measured, to be resumed; a second SIGINT kills as usual.
    const interrupt = new AbortController()
    // Not `once`: a once-listener is removed before it runs, and signal-exit (loaded with
    // node-llama-cpp) then sees itself alone and re-raises the signal, killing the process.
    const onSigint = () => {
      if (!interrupt.signal.aborted) return interrupt.abort(INTERRUPT)
      process.off('SIGINT', onSigint)
      process.kill(process.pid, 'SIGINT')
    }
    process.on('SIGINT', onSigint)
    try {
      let f = ctx.flags
      // Engines launched only through their serving capability: loaded when asked for, so the others' start-up pays nothing.
      if (f.engine !== undefined && f.engine !== 'llamacpp' && f.engine !== 'onnx') return await (await import('./sweep-engine.ts')).sweepServedEngine(f.engine, f.backend, ctx.io.env)
      let hardware: HardwareSpec
      let cores: number
      if (f.resume) {
        // A resume plans from the flags, hardware and core count the run stored, so it measures the same combinations.
        const stored = await store.runs.require(null, f.resume)
        const spec = storedSweepSpec(stored)
        if (!spec) throw new KerneltuneError('INVALID_INPUT', `run ${f.resume} was not made by kerneltune sweep: continue it with kerneltune run watch ${f.resume}`)
        f = { ...sweepFlagsOf(spec), db: f.db, resume: f.resume, force: f.force, out: f.out } as typeof f
        hardware = stored.target.hardware
        cores = spec.cores
        ctx.io.stderr(`resuming run ${f.resume} (${stored.progress.done} of ${stored.progress.total} combinations stored)\n`)
      } else {
        const { detectHardware, specFromDetected } = await import('@kerneltune/features/node')
        const detected = await detectHardware()
        hardware = specFromDetected(detected)
        cores = detected.cpu.threads
      }
      // ONNX Runtime's sweep has its own model, space and backend (sweep-onnx.ts).
      if (f.engine === 'onnx' || f.backend === 'onnxruntime') {
        if (f.engine !== 'onnx') throw usageError('--backend onnxruntime measures ONNX Runtime: add --engine onnx')
        return await runOnnxSweep({ ...ctx, flags: f }, { store, hardware, cores, signal: interrupt.signal, force: f.force === true, ...(f.resume ? { resumeRunId: f.resume } : {}) })
      }
      // The sequential design measures each combination to --reps: it has no rounds a budget could end, nor results after each.
      const interleaved = f.design === 'interleaved' || (f.design === undefined && f.backend === 'server')
      if (!interleaved && (f.timeBudget !== undefined || f.out !== undefined)) throw usageError(`${f.timeBudget !== undefined ? '--time-budget' : '--out'} is for the interleaved design: add --design interleaved (or --backend server)`)
      const { path: modelPath, bytes: modelBytes } = await requireGgufFile(ctx.io, f.gguf, 'sweep')
      const override = f.space ? parseSpace(f.space) : undefined
      const mode: SweepMode = f.quick ? 'quick' : 'standard'
      const session: SweepSession = {
        spec: sweepSpecOf({ ...f, gguf: modelPath }, cores), force: f.force === true, signal: interrupt.signal, ...(f.resume ? { resumeRunId: f.resume } : {}),
      }
      const c = { ...ctx, flags: f }
      if (f.backend === 'server' || f.design === 'interleaved') return await runServerOrInterleaved(c, { store, modelPath, modelBytes, mode, override, hardware, cores, session, startedAt })
      return await sequentialSweep(c, store, { modelPath, modelBytes, mode, override, hardware, cores, session })
    } finally {
      process.off('SIGINT', onSigint)
      await store.close()
    }
  },
})

/** The in-process sequential path (the default): node-llama-cpp, the defaults first, early stopping. */
async function sequentialSweep(ctx: CommandContext<typeof SWEEP_FLAGS>, store: Store, i: { modelPath: string; modelBytes: number; mode: SweepMode; override: SweepSpace | undefined; hardware: HardwareSpec; cores: number; session: SweepSession }): Promise<number> {
    const f = ctx.flags
    const { modelPath, modelBytes, mode } = i
    const d = SWEEP_DEFAULTS[mode]
    const plan = planSweep(mode, i.hardware, i.cores, i.override)
    const started = Date.now()
    const maxReps = f.reps ?? d.maxReps
    const o: SweepRunOptions = {
      store,
      hardware: i.hardware,
      modelPath,
      plan,
      gpu: f.gpu === 'off' || f.gpu === undefined ? false : f.gpu,
      promptTokens: f.promptTokens ?? d.promptTokens,
      genTokens: f.genTokens ?? d.genTokens,
      warmups: f.warmup ?? 1,
      minReps: Math.min(maxReps, f.minReps ?? d.minReps),
      maxReps,
      earlyStop: f.noEarlyStop !== true,
      noiseFloor: f.noiseFloor ?? 0.05,
      gate: f.gate ?? SWEEP_GATE_DEFAULTS.gate,
      metric: f.metric ?? 'decodeTps',
      epsilon: f.epsilon ?? SWEEP_GATE_DEFAULTS.epsilon,
      margin: f.margin ?? SWEEP_GATE_DEFAULTS.margin,
      session: i.session,
    }
    ctx.io.stderr(`sweeping ${plan.candidates.length} combinations (${plan.pruned.length} removed by llama.cpp's rules) against the defaults, ${mode} mode\n`)
    const { decided, ...r } = await executeSweep(ctx.io, o)
    const seconds = (Date.now() - started) / 1000
    if (ctx.json) {
      ctx.printJson({
        ok: true,
        engine: 'llamacpp',
        ...r,
        ...decisionJson(r, decided),
        model: { path: modelPath, bytes: modelBytes },
        mode,
        space: plan.space,
        catalog: plan.catalog,
        pruned: plan.pruned,
        workload: { promptTokens: o.promptTokens, genTokens: o.genTokens },
        seconds,
      })
    } else {
      ctx.io.stdout(renderSweep(r, decisionText(decided)))
      ctx.io.stdout(`${r.combos.length} combinations measured in ${fmt(seconds, 1)} s; ${plan.pruned.length} removed by rules (${[...new Set(plan.pruned.map((p) => p.rule))].join(', ') || 'none'}); stored as run ${r.runId} (kerneltune run show ${r.runId})\n`)
    }
    // Exit 3 when the run's verdict names no winner: the recommendation is then no change.
    return decided.verdict.kind === 'winner' ? 0 : 3
}
