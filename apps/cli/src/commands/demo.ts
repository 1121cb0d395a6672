/**
 * `kerneltune demo`: the whole job on this machine, from the embedded defaults. It detects the
 * hardware (with a short memory-bandwidth probe), synthesizes a small GGUF model, predicts its
 * decode and prefill speed, measures llama-server's defaults for real, sweeps llama.cpp settings
 * (quick mode) with statistics against the defaults, and prints the recommended command line.
 * Predictions and measurements are labelled as such.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseParamCount, synthLlama, type SynthQuant } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { detectHardware, fromGguf, specFromDetected } from '@kerneltune/features/node'
import { parseQuery, pretrainedModel, queryBound, type ThroughputQueryInput } from '@kerneltune/regressor'
import { formatCommandLine } from '@kerneltune/core'
import { withoutDefaults } from '@kerneltune/engines-llamacpp'
import { SWEEP_GATE_DEFAULTS } from '@kerneltune/experiment'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, progressBar } from '../cli/output.ts'
import { executeSweep, parseSpace, sweepStore } from './sweep.ts'
import { decisionJson } from './sweep-run.ts'
import { sweepSpecOf } from './sweep-resume.ts'
import { SWEEP_DEFAULTS, planSweep, renderSweep } from './sweep-plan.ts'
import { sessionJson } from '@kerneltune/compose/bench'
import { renderSession } from './bench/serve.ts'
import { demoServe, type DemoServeResult } from './demo-serve.ts'
import { demoOrigin, renderWallTime, wallSeconds } from './demo-timing.ts'
import { decideDemo, demoDecisionJson, DEMO_SLO_TEXT, DEMO_SLO_WHY, renderDemoDecision } from './demo-objectives.ts'
import { objectivesFromFlags } from './shared/objectives-flags.ts'

const DEFAULT_PARAMS = '15M'
const DEFAULT_QUANT: SynthQuant = 'Q8_0'
/** A small vocabulary keeps the embedding from dominating a 15M model, as in real small llamas. */
const VOCAB = 2048
const SEED = 1

/** The regressor's vendor one-hot from the CPU model string (its data has no Intel or AMD rows, so these weigh nothing). */
const cpuVendor = (model: string) => (/intel/i.test(model) ? 'intel' : /amd|epyc|ryzen/i.test(model) ? 'amd' : /apple/i.test(model) ? 'apple' : 'other')
/** A GPU preset's vendor as the regressor names it. */
const VENDORS = ['nvidia', 'amd', 'apple', 'intel']


/** Where `kerneltune serve` (default --host 127.0.0.1, --port 8080) shows the dashboard. */
const DASHBOARD_URL = 'http://127.0.0.1:8080/'
const DASHBOARD_HINT = `start it with \`kerneltune serve\` (or \`kerneltune serve --port N\`), then open ${DASHBOARD_URL} and paste the superadmin token that serve prints on its first start (or set KERNELTUNE_ADMIN_TOKEN before starting it; a link ending in #token=<token> signs in directly)`

export const demoCommand = defineCommand({
  name: 'demo',
  summary: 'The whole job on this machine: synthesize a small model, predict, measure, sweep llama.cpp settings, recommend a command line.',
  description: `Detects this machine (CPU, cores, RAM; memory bandwidth from a short copy probe), writes a synthetic llama GGUF (${DEFAULT_PARAMS} parameters, ${DEFAULT_QUANT}, random weights: meaningless text, real speed), predicts its decode and prefill tokens/s on this machine with the pretrained regressor of @kerneltune/regressor (a physics model with a 90% interval, capped by the roofline bound), measures llama-server's default settings for real through node-llama-cpp, runs a quick sweep of llama.cpp settings against those defaults (trimmed means, Welch/Yuen, Cohen's d, early termination, a quality gate), and chooses by latency objectives a chat user would accept (TTFT p99 ≤ 1000 ms, TPOT p99 ≤ 200 ms unless --slo says otherwise; printed with the reason; --gate decides by a quality gate instead), prints the recommended llama-server command line; last, it launches llama-server with that command line and measures it under concurrent streaming load (1 and 4 requests in flight), next to the in-process figures (building llama-server once, about 17 CPU-minutes, when no binary exists; --no-build skips instead). It prints its own wall time from the start of \`npm run demo\` (or of this process), by phase: 25 s for \`npm run demo\` on an idle 2-core Intel Xeon with the workspace installed and llama-server already built (median of 3 runs, bench/results/demo-timing.json; the breakdown says where it goes). The model goes to a temporary folder removed afterwards, unless --keep or --out-dir (both reuse a model already there).`,
  flags: [
    { name: 'params', type: 'string', description: 'Size of the synthetic model.', default: DEFAULT_PARAMS, valueName: 'N' },
    { name: 'quant', type: 'string', description: 'Weight type of the synthetic model.', choices: ['F16', 'Q8_0', 'Q4_0'], default: DEFAULT_QUANT },
    { name: 'out-dir', type: 'string', description: 'Folder for the model (kept; reused when present).', valueName: 'DIR' },
    { name: 'keep', type: 'boolean', description: `Keep the model in ${join(tmpdir(), 'kerneltune-demo')} and reuse it next time.` },
    { name: 'space', type: 'string', description: 'Replace dimensions of the quick sweep space, as JSON: {"threads":["1","2"]}.', valueName: 'JSON' },
    { name: 'reps', type: 'integer', description: 'Repetitions per combination at most.', default: SWEEP_DEFAULTS.quick.maxReps, min: 2, max: 100 },
    { name: 'prompt-tokens', type: 'integer', description: 'Prompt length per repetition.', default: SWEEP_DEFAULTS.quick.promptTokens, min: 1 },
    { name: 'gen-tokens', type: 'integer', description: 'Tokens generated per repetition.', default: SWEEP_DEFAULTS.quick.genTokens, min: 2 },
    { name: 'slo', type: 'string', description: `Latency objectives the choice must meet, NAME=MS comma-separated (default ${DEMO_SLO_TEXT}: ${DEMO_SLO_WHY}).`, valueName: 'NAME=MS[,...]' },
    { name: 'db', type: 'string', description: 'Store the sweep\'s run here (default: the embedded store, where History and `kerneltune run show` find it).', valueName: 'PATH' },
    { name: 'gate', type: 'string', description: 'Decide by this quality gate of the sweep instead of the latency objectives (regression: no metric may worsen by more than 5%).', choices: ['topk5', 'pareto', 'regression', 'manual'] },
    { name: 'no-serve', type: 'boolean', description: 'Skip the last step: launching llama-server with the recommended command line and measuring it under concurrent load.' },
    { name: 'no-build', type: 'boolean', description: 'When no llama-server binary exists, skip the serving step with instructions instead of building it (about 17 CPU-minutes, once).' },
  ],
  examples: ['kerneltune demo', 'kerneltune demo --json', 'kerneltune demo --keep --params 30M --quant Q4_0'],
  jsonOutput:
    '{ ok, measured: true, dashboard: { running: false, url, start }, hardware: { detected, spec }, model: { path, reused, params, shape, bytes, quant }, prediction: { kind: "prediction", predictor, decodeTps, prefillTps, decode: Phase, prefill: Phase, memBwGbs, tflops, unifiedMemory, vendor }, Phase = { predictedTps, rooflineTps, capped, rawTps, confidence, binding, explanation, interval: { low, high, level }, extrapolation?: string[] }, measurement: { combo: {}, device, reps, warmups, promptTokens, genTokens, decodeTps, prefillTps, ttftMs }, sweep: { …kerneltune sweep --json (winner: the gate\'s) }, decidedBy: "objectives" | "gate", objectives?: { slo, objective, why, candidates: [{ index, combo, feasible, violations, ttftMsP99, tpotMsP99, decodeTps }], verdict: { …the run verdict (kind, index: the candidate to run, 0 the defaults | null, headline, reasons, figures), evidence: { winner (the objectives\' rule alone) | null, defaultsFeasible, reason } } }, recommendedArgv, serving: { …bench serve --json } | { skipped }, seconds: { total, install?, startup, detect, synth, predict, measure, sweep, binary, serve, other }, timing: { from: "npm run demo" | "process start", startedAt, llamaServer: "cached" | "built" | "skipped" } }',
  async run(ctx) {
    const f = ctx.flags
    const t0 = Date.now()
    // From the start of `npm run demo` (bootstrap.mjs says when) or of this process (issue 23 item 7).
    const origin = demoOrigin(ctx.io.env, performance.timeOrigin)
    const io = ctx.io
    const step = (s: string) => io.stderr(`[demo] ${s}\n`)

    step('detecting this machine and probing memory bandwidth')
    const detected = await detectHardware()
    const spec = specFromDetected(detected)
    const tDetect = (Date.now() - t0) / 1000

    const quant = (f.quant ?? DEFAULT_QUANT) as SynthQuant
    const params = parseParamCount(f.params ?? DEFAULT_PARAMS)
    const keepDir = f.outDir ? resolve(io.cwd, f.outDir) : f.keep ? join(tmpdir(), 'kerneltune-demo') : undefined
    const dir = keepDir ?? mkdtempSync(join(tmpdir(), 'kerneltune-demo-'))
    mkdirSync(dir, { recursive: true })
    const synth = synthLlama({ params, quant, seed: SEED, vocabSize: VOCAB })
    const path = join(dir, `llama-${f.params ?? DEFAULT_PARAMS}-${quant.toLowerCase()}-v${VOCAB}-s${SEED}.gguf`)
    const reused = existsSync(path) && statSync(path).size === synth.layout.totalBytes
    const t1 = Date.now()
    try {
      if (!reused) {
        step(`synthesizing ${path}`)
        const bar = progressBar(io, 'writing', Math.ceil(synth.layout.totalBytes / 1e6))
        await writeGgufFile(path, synth.file, { onProgress: (w) => bar.update(Math.floor(w / 1e6), 'MB') })
        bar.done('MB')
      } else step(`reusing ${path}`)
      const tSynth = (Date.now() - t1) / 1000
      const tp = Date.now()

      const mode = 'quick' as const
      const maxReps = f.reps ?? SWEEP_DEFAULTS.quick.maxReps
      const d = {
        promptTokens: f.promptTokens ?? SWEEP_DEFAULTS.quick.promptTokens,
        genTokens: f.genTokens ?? SWEEP_DEFAULTS.quick.genTokens,
        minReps: Math.min(maxReps, SWEEP_DEFAULTS.quick.minReps),
        maxReps,
      }
      const { model } = await fromGguf(path)
      // Prediction: the pretrained regressor, with this machine's probed bandwidth and estimated
      // FLOP rate, capped by the roofline bound (decode at the middle of the generated run).
      const gpu = spec.kind !== 'cpu'
      const base = {
        paramsB: model.paramsB, quant: model.quant, memBwGbs: spec.memBwGbs, tflops: spec.fp16Tflops, batch: 1,
        unifiedMemory: spec.unifiedMemory ?? !gpu,
        vendor: (gpu ? (VENDORS.includes(spec.vendor) ? spec.vendor : 'other') : cpuVendor(detected.cpu.model)) as ThroughputQueryInput['vendor'],
        // The physics model's per-layer overhead and its CPU efficiencies (issue 18).
        layers: model.numLayers, device: gpu ? 'gpu' as const : 'cpu' as const,
      }
      const regressor = pretrainedModel()
      const phase = (q: ThroughputQueryInput) => {
        const p = regressor.predict(q)
        const b = queryBound(parseQuery(q))
        return { predictedTps: p.predictedTps, rooflineTps: p.rooflineTps, capped: p.capped, rawTps: p.rawTps, confidence: p.confidence, binding: b.binding, explanation: b.explanation, ...(p.interval ? { interval: p.interval } : {}), ...(p.extrapolation ? { extrapolation: p.extrapolation } : {}) }
      }
      const dec = phase({ ...base, phase: 'decode', contextTokens: d.promptTokens + Math.floor(d.genTokens / 2) })
      const pre = phase({ ...base, phase: 'prefill', promptTokens: d.promptTokens })
      const prediction = {
        kind: 'prediction' as const,
        predictor: regressor.name,
        decodeTps: dec.predictedTps,
        prefillTps: pre.predictedTps,
        decode: dec,
        prefill: pre,
        memBwGbs: base.memBwGbs,
        tflops: base.tflops,
        unifiedMemory: base.unifiedMemory,
        vendor: base.vendor,
      }

      const tPredict = (Date.now() - tp) / 1000
      step('measuring the defaults, then sweeping llama.cpp settings (quick mode)')
      const plan = planSweep(mode, spec, detected.cpu.threads, f.space ? parseSpace(f.space) : undefined)
      const t2 = Date.now()
      let baselineDone = t2
      const store = await sweepStore(io, f.db)
      const { decided, ...sweep } = await executeSweep(io, {
        store,
        hardware: spec,
        modelPath: path,
        plan,
        promptTokens: d.promptTokens,
        genTokens: d.genTokens,
        warmups: 1,
        minReps: d.minReps,
        maxReps: d.maxReps,
        earlyStop: true,
        noiseFloor: 0.05,
        gate: f.gate ?? SWEEP_GATE_DEFAULTS.gate,
        metric: 'decodeTps',
        epsilon: SWEEP_GATE_DEFAULTS.epsilon,
        margin: SWEEP_GATE_DEFAULTS.margin,
        onBaselineDone: () => void (baselineDone = Date.now()),
        // The sweep's flags that plan and measure the same, so `kerneltune sweep --resume` can continue the demo's run.
        session: { spec: sweepSpecOf({ gguf: path, quick: true, ...(f.space ? { space: f.space } : {}), reps: d.maxReps, minReps: d.minReps, warmup: 1, promptTokens: d.promptTokens, genTokens: d.genTokens, gate: f.gate ?? SWEEP_GATE_DEFAULTS.gate, metric: 'decodeTps' }, detected.cpu.threads) },
      }).finally(() => store.close())
      // The objectives decide unless a gate was asked for (issue 25).
      const byObjectives = f.gate === undefined ? await decideDemo(sweep, objectivesFromFlags({ slo: f.slo ?? DEMO_SLO_TEXT })!.slo, d.genTokens, path) : undefined
      // With --gate: the stored run's verdict (its winner and command line), not the design's.
      const chosen = byObjectives ? byObjectives.winner : decided.winner?.combo
      const recommendedArgv = byObjectives ? byObjectives.recommendedArgv : decided.recommendedArgv ?? []
      const tMeasure = (baselineDone - t2) / 1000
      const tSweep = (Date.now() - baselineDone) / 1000
      const t3 = Date.now()
      const served: DemoServeResult = f.noServe
        ? { skipped: '--no-serve', binarySeconds: 0, built: false }
        : await demoServe(io, { modelPath: path, combo: chosen ? withoutDefaults(chosen) : {}, promptTokens: d.promptTokens, outputTokens: d.genTokens, build: f.noBuild !== true })
      const tServe = (Date.now() - t3) / 1000 - served.binarySeconds
      const llamaServer = 'skipped' in served ? 'skipped' as const : served.built ? 'built' as const : 'cached' as const
      const phases = { detect: tDetect, synth: tSynth, predict: tPredict, measure: tMeasure, sweep: tSweep, binary: served.binarySeconds, serve: tServe }
      const timing = { from: origin.from, startedAt: new Date(origin.at).toISOString(), llamaServer }
      const b = sweep.baseline.stats
      const measurement = {
        combo: {},
        device: sweep.device,
        reps: sweep.baseline.reps.length,
        warmups: 1,
        promptTokens: d.promptTokens,
        genTokens: d.genTokens,
        decodeTps: b.decodeTps,
        prefillTps: b.prefillTps,
        ttftMs: b.ttftMs,
      }
      const modelInfo = { path, reused, params: synth.paramCount, shape: synth.shape, bytes: synth.layout.totalBytes, quant }
      if (ctx.json) {
        const seconds = wallSeconds(origin, t0, phases, Date.now())
        ctx.printJson({ ok: true, measured: true, dashboard: { running: false, url: DASHBOARD_URL, start: 'kerneltune serve' }, hardware: { detected, spec }, model: modelInfo, prediction, measurement, sweep: { ...sweep, ...decisionJson(sweep, decided), space: plan.space, pruned: plan.pruned, catalog: plan.catalog }, decidedBy: byObjectives ? 'objectives' : 'gate', ...(byObjectives ? { objectives: demoDecisionJson(byObjectives) } : {}), recommendedArgv, serving: 'skipped' in served ? { skipped: served.skipped } : { ...sessionJson(served.session), ...(served.buildSeconds ? { buildSeconds: served.buildSeconds } : {}) }, seconds, timing })
        return
      }
      const s = synth.shape
      const w = chosen ? [sweep.baseline, ...sweep.combos].find((c) => c.combo === chosen) : undefined
      io.stdout('== 1. This machine\n')
      io.stdout(keyValues([
        ['cpu', `${detected.cpu.model}, ${detected.cpu.cores} cores / ${detected.cpu.threads} threads, ${fmt(detected.cpu.ramGb)} GiB RAM`],
        ['gpu', detected.gpus.length ? detected.gpus.map((g) => g.name).join(', ') : `none (nvidia-smi ${detected.nvidiaSmi})`],
        ['memory bandwidth', `${fmt(spec.memBwGbs, 1)} GB/s (${spec.sources[0] ?? 'preset'})`],
      ]))
      io.stdout(`\n== 2. Model (${reused ? 'reused' : `synthesized in ${fmt(tSynth, 1)} s`}; random weights: meaningless text, real speed)\n`)
      io.stdout(keyValues([
        ['file', `${path} (${fmt(synth.layout.totalBytes / 1e6, 1)} MB)`],
        ['shape', `llama, ${fmt(synth.paramCount / 1e6, 1)}M params, ${quant}: hidden ${s.hidden}, layers ${s.layers}, heads ${s.heads}, ffn ${s.ffn}, vocab ${s.vocab}`],
      ]))
      const capNote = (p: typeof dec) => (p.capped ? `capped: the regressor said ${fmt(p.rawTps)}` : 'below it')
      const iv = (p: typeof dec) => (p.interval ? `, 90% interval ${fmt(p.interval.low)}–${fmt(p.interval.high)}` : '')
      io.stdout(`\n== 3. PREDICTION (pretrained regressor ${regressor.name}, from the probed bandwidth; computed, not measured)\n`)
      io.stdout(keyValues([
        ['decode', `${fmt(dec.predictedTps)} tok/s${iv(dec)} (roofline bound ${fmt(dec.rooflineTps)}, ${dec.binding}-bound; ${capNote(dec)})`],
        ['prefill', `${fmt(pre.predictedTps)} tok/s for ${d.promptTokens} prompt tokens${iv(pre)} (roofline bound ${fmt(pre.rooflineTps)}, ${pre.binding}-bound; ${capNote(pre)})`],
      ]))
      const unseen = [...new Set([...(dec.extrapolation ?? []), ...(pre.extrapolation ?? [])])]
      if (unseen.length) io.stdout(`(extrapolates: no training row has ${unseen.join(', ')}; the 90% interval was measured on chips of kinds the data has, so read it as a guide, not a guarantee. Three measurements and \`kerneltune calibrate\` fix that: docs/prediction-vs-measurement.md.)\n`)
      if (dec.capped || pre.capped) io.stdout('(capped: the regressor\'s own output exceeded the roofline bound, so the bound is the prediction. Its calibrate corrects it from a few measurements: docs/prediction-vs-measurement.md.)\n')
      io.stdout(`\n== 4. MEASUREMENT of llama-server's defaults (llama.cpp in this process, ${measurement.reps} reps after 1 warm-up, ${d.promptTokens} prompt + ${d.genTokens} generated tokens)\n`)
      io.stdout(keyValues([
        ['decode', `${fmt(b.decodeTps?.trimmedMean ?? NaN)} tok/s (trimmed mean; ${fmt((b.decodeTps?.trimmedMean ?? NaN) / dec.predictedTps * 100, 0)}% of the prediction)`],
        ['prefill', `${fmt(b.prefillTps?.trimmedMean ?? NaN)} tok/s (${fmt((b.prefillTps?.trimmedMean ?? NaN) / pre.predictedTps * 100, 0)}% of the prediction)`],
        ['TTFT', `${fmt(b.ttftMs?.trimmedMean ?? NaN, 2)} ms`],
      ]))
      io.stdout(`\n== 5. SWEEP (measured; quick mode: ${Object.entries(plan.space).map(([k, v]) => `${k} ${v.join('/')}`).join(' x ')}; ${plan.pruned.length} removed by llama.cpp's rules)\n`)
      if (byObjectives) io.stdout(`(the gate column and the winner line are the ${sweep.gate.method} gate's view, shown for reference; the latency objectives decide, below)\n`)
      io.stdout(renderSweep(sweep))
      if (byObjectives) io.stdout(renderDemoDecision(byObjectives))
      if (w) {
        const wd = w.stats.decodeTps?.trimmedMean ?? NaN
        io.stdout(`the winner decodes at ${fmt(wd)} tok/s, ${fmt(wd / dec.predictedTps * 100, 0)}% of the predicted ${fmt(dec.predictedTps)}\n`)
      }
      io.stdout(`\n== Recommended command line\n${formatCommandLine({ argv: recommendedArgv })}\n`)
      if ('skipped' in served) io.stdout(`\n== 6. SERVING: skipped (${served.skipped})\n`)
      else {
        const [one, four] = served.session.levels
        io.stdout(`\n== 6. SERVING (measured: the recommended command line launched as llama-server, streaming /v1/completions, ${d.promptTokens} prompt + ${d.genTokens} output tokens per request)\n`)
        io.stdout(renderSession(served.session))
        io.stdout(`in-process (one stream, node-llama-cpp): ${fmt(w?.stats.decodeTps?.trimmedMean ?? b.decodeTps?.trimmedMean ?? NaN)} tok/s decode; as a server: ${fmt(1000 / (one?.metrics.tpotMs.mean ?? NaN))} tok/s per stream at 1 request in flight (1000 / TPOT), ${fmt(four?.metrics.outputTokensPerSecond ?? NaN)} output tok/s in total at 4\n`)
      }
      if (!keepDir) io.stdout('(the model was temporary and is removed now; pass --keep or --out-dir DIR to keep it)\n')
      io.stdout(`\n== Dashboard (not running: the demo starts no server and leaves none behind)\n${DASHBOARD_HINT}\n`)
      io.stdout(`\n${renderWallTime(origin, wallSeconds(origin, t0, phases, Date.now()), llamaServer)}\nNext: kerneltune sweep --gguf ${keepDir ? path : 'FILE'} (standard mode), kerneltune measure --help\n`)
    } finally {
      if (!keepDir) rmSync(dir, { recursive: true, force: true })
    }
  },
})
