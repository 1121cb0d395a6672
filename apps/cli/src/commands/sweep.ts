/**
 * `kerneltune sweep --engine llamacpp --gguf FILE [--quick]`: a Tier 1 sweep on this machine,
 * from the embedded defaults (no server needed). The command parses its flags, calls
 * @kerneltune/compose's sweep (planning through the catalog with the engine's rules, the stored
 * run measured by the tuner's executor with the composed registry, the reports) and prints.
 */
import process from 'node:process'
import type { HardwareSpec } from '@kerneltune/core'
import type { SweepMetric, SweepResult } from '@kerneltune/experiment'
import type { GateMethod } from '@kerneltune/stats'
import type { Store } from '@kerneltune/store'
import type { SweepDecision, SweepFlags, SweepPlan, SweepSession } from '@kerneltune/compose/node'
import type { CommandContext, Io } from '../cli/command.ts'
import { defineCommand } from '../cli/command.ts'
import { parseArgs, usageError } from '../cli/args.ts'
import { fmt, progressBar, table } from '../cli/output.ts'
import { SWEEP_FLAGS } from './sweep-flags.ts'
import { sweepFlagsOf, sweepSpecOf } from './sweep-resume.ts'

/** What demo.ts measures with executeSweep: the in-process sequential sweep of a plan. */
export interface SweepRunOptions {
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
  readonly session: SweepSession
}

export { parseSpace } from '@kerneltune/compose'

/** The in-process sequential sweep of a plan as a stored run, with a progress bar (one step per combination, baseline first). */
export async function executeSweep(io: Io, o: SweepRunOptions): Promise<SweepResult & { runId: string; decided: SweepDecision }> {
  const { sweepAsRun } = await import('@kerneltune/compose/node')
  const backend = o.gpu ? (await import('@kerneltune/engines-llamacpp/node')).llamacppBackend({ modelPath: o.modelPath, gpu: o.gpu }) : undefined
  const bar = progressBar(io, 'sweep', o.plan.candidates.length + 1)
  const { runId, result, decided } = await sweepAsRun({
    store: o.store, modelPath: o.modelPath, hardware: o.hardware, plan: o.plan, design: 'sequential', backendName: 'node-llama-cpp', ...(backend ? { backend } : {}),
    workload: { batch: 1, promptTokens: o.promptTokens, generatedTokens: o.genTokens }, repetitions: o.maxReps, warmups: o.warmups, session: o.session,
    settings: { model: o.modelPath, warmups: o.warmups, minReps: o.minReps, maxReps: o.maxReps, earlyStop: o.earlyStop, noiseFloor: o.noiseFloor, gate: o.gate, metric: o.metric, epsilon: o.epsilon, margin: o.margin },
    is: (r): r is SweepResult => !('aa' in r),
    onEvent: (e) => e.type === 'progress' && (bar.update(e.done, `${e.done}/${e.total}`), e.done === 1 && o.onBaselineDone?.()),
  })
  bar.done()
  return { ...result, runId, decided }
}

/** `run resume` on a sweep's run: the sweep command with --resume (its stored flags, backend and design). Undefined when the run is not a sweep's. */
export async function resumeSweepRun(ctx: Omit<CommandContext, 'flags'>, runId: string, o: { db?: string; force: boolean }): Promise<number | undefined> {
  const store = await sweepStore(ctx.io, o.db)
  const { storedSweepSpec } = await import('@kerneltune/compose/node')
  const spec = await store.runs.require(null, runId).then(storedSweepSpec).finally(() => store.close())
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
    const { INTERRUPT } = await import('@kerneltune/tuner')
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
      const sweep = await import('@kerneltune/compose/node')
      let hardware: HardwareSpec
      let cores: number
      if (f.resume) {
        // A resume plans from the flags, hardware and core count the run stored, so it measures the same combinations.
        const stored = await store.runs.require(null, f.resume)
        const spec = sweep.storedSweepSpec(stored)
        if (!spec) throw usageError(`run ${f.resume} was not made by kerneltune sweep: continue it with kerneltune run watch ${f.resume}`)
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
      const { objectivesFromFlags, objectivesHeader, verdictOf, fmtValue, writeRecords } = await import('./shared/objectives-flags.ts')
      const { capacityJson, capacityLine } = await import('./bench/capacity.ts')
      const objectives = objectivesFromFlags(f)
      const input = {
        io: { ...ctx.io, text: { table, fmt, objectivesHeader, verdictOf, fmtValue, capacityLine, capacityJson }, progress: (label: string, total: number) => progressBar(ctx.io, label, total) },
        flags: f, store, hardware, cores, specOf: (flags: SweepFlags) => sweepSpecOf(flags, cores), signal: interrupt.signal, force: f.force === true, startedAt,
        ...(f.resume ? { resumeRunId: f.resume } : {}), ...(objectives ? { objectives } : {}), ...(f.records ? { writeRecords: (lines: Parameters<typeof writeRecords>[2]) => writeRecords(ctx.io, f.records!, lines) } : {}),
      }
      // ONNX Runtime's sweep has its own model, space and backend.
      if (f.backend === 'onnxruntime' && f.engine !== 'onnx') throw usageError('--backend onnxruntime measures ONNX Runtime: add --engine onnx')
      const { requireGgufFile } = await import('./shared/target-flags.ts')
      const model = () => requireGgufFile(ctx.io, f.gguf, 'sweep')
      // The GGUF engine and ONNX Runtime are planned by the sweep; any other engine through its plugin's serving space, as its own server.
      const r = f.engine === 'onnx' ? await sweep.sweepOnnx(input) : (f.engine ?? 'llamacpp') === 'llamacpp' ? await sweep.sweepGguf(input, model) : await sweep.sweepServed(input, f.engine ?? 'llamacpp', model)
      if (ctx.json) ctx.printJson(r.json)
      else ctx.io.stdout(r.text)
      return r.code
    } finally {
      process.off('SIGINT', onSigint)
      await store.close()
    }
  },
})
