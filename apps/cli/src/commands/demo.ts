/**
 * `kerneltune demo`: the whole job on this machine, from the embedded defaults. Each step is a
 * call (compose's demo steps, the sweep's executeSweep): detect, synthesize a model, predict,
 * measure the defaults and sweep, decide by latency objectives, serve the recommendation. Here:
 * the order of the steps and what is printed. Predictions and measurements are labelled as such.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { formatCommandLine } from '@kerneltune/core'
import { decideDemo, demoDecisionJson, demoLabel, demoModel, demoOrigin, demoServe, DEMO_SLO_TEXT, DEMO_SLO_WHY, predictDemo, renderWallTime, sessionJson, wallSeconds, type DemoDecision, type DemoPhase } from '@kerneltune/compose/bench'
import { SWEEP_GATE_DEFAULTS } from '@kerneltune/experiment'
import { detectHardware, specFromDetected } from '@kerneltune/features/node'
import type { SynthQuant } from '@kerneltune/gguf'
import { describeSlo, describeViolation } from '@kerneltune/serving'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, progressBar, table } from '../cli/output.ts'
import { renderSession } from './bench/serve.ts'
import { objectivesFromFlags } from './shared/objectives-flags.ts'
import { executeSweep, parseSpace, sweepStore } from './sweep.ts'
import { decisionJson } from './sweep-run.ts'
import { sweepSpecOf } from './sweep-resume.ts'
import { SWEEP_DEFAULTS, planSweep, renderSweep } from './sweep-plan.ts'

const DEFAULTS = { params: '15M', quant: 'Q8_0' } as const
/** Where `kerneltune serve` (default --host 127.0.0.1, --port 8080) shows the dashboard. */
const DASHBOARD_URL = 'http://127.0.0.1:8080/'
const DASHBOARD_HINT = `start it with \`kerneltune serve\` (or \`kerneltune serve --port N\`), then open ${DASHBOARD_URL} and paste the superadmin token that serve prints on its first start (or set KERNELTUNE_ADMIN_TOKEN before starting it; a link ending in #token=<token> signs in directly)`

export function renderDemoDecision(d: DemoDecision): string {
  const rows = d.decision.ranking.map(({ index: i }) => [demoLabel(d.combos[i]!), fmt(d.metrics[i]!.outputTokensPerSecond), fmt(d.metrics[i]!.ttftMs.p99, 1), fmt(d.metrics[i]!.tpotMs.p99, 1), d.evaluations[i]!.feasible ? 'meets' : `misses: ${d.evaluations[i]!.violations.map(describeViolation).join('; ')}`])
  let out = `objectives: ${describeSlo(d.slo)} (${DEMO_SLO_WHY}; --slo to state yours); among the candidates that meet them, the fastest decode wins if it beats the defaults significantly\n`
  out += table(rows, ['combination', 'decode tok/s', 'TTFT p99 ms', 'TPOT p99 ms', 'objectives'])
  if (!d.decision.defaultsFeasible) out += 'the defaults miss the objectives: the winner must meet them\n'
  // The objectives' rule is evidence; the verdict (what runs) is the one the tuner decides.
  out += `objectives alone: ${d.decision.winner === null ? 'keep the defaults' : demoLabel(d.combos[d.decision.winner]!)}: ${d.decision.reason}\n`
  return out + `verdict: ${d.winner ? `${demoLabel(d.winner)}: ` : ''}${d.verdict.headline}\n`
}

export const demoCommand = defineCommand({
  name: 'demo',
  summary: "The whole job on this machine: synthesize a small model, predict, measure, sweep the engine's settings, recommend a command line.",
  description: `Detects this machine (CPU, cores, RAM; memory bandwidth from a short copy probe), writes a synthetic llama GGUF (${DEFAULTS.params} parameters, ${DEFAULTS.quant}, random weights: meaningless text, real speed), predicts its decode and prefill tokens/s on this machine with the pretrained regressor of @kerneltune/regressor (a physics model with a 90% interval, capped by the roofline bound), measures the engine's default settings for real in this process, runs a quick sweep of its settings against those defaults (trimmed means, Welch/Yuen, Cohen's d, early termination, a quality gate), and chooses by latency objectives a chat user would accept (TTFT p99 ≤ 1000 ms, TPOT p99 ≤ 200 ms unless --slo says otherwise; printed with the reason; --gate decides by a quality gate instead), prints the recommended command line; last, it launches the engine's server with that command line and measures it under concurrent streaming load (1 and 4 requests in flight), next to the in-process figures (building the server once, about 17 CPU-minutes, when no binary exists; --no-build skips instead). It prints its own wall time from the start of \`npm run demo\` (or of this process), by phase: 25 s for \`npm run demo\` on an idle 2-core Intel Xeon with the workspace installed and the server already built (median of 3 runs, bench/results/demo-timing.json; the breakdown says where it goes). The model goes to a temporary folder removed afterwards, unless --keep or --out-dir (both reuse a model already there).`,
  flags: [
    { name: 'params', type: 'string', description: 'Size of the synthetic model.', default: DEFAULTS.params, valueName: 'N' },
    { name: 'quant', type: 'string', description: 'Weight type of the synthetic model.', choices: ['F16', 'Q8_0', 'Q4_0'], default: DEFAULTS.quant },
    { name: 'out-dir', type: 'string', description: 'Folder for the model (kept; reused when present).', valueName: 'DIR' },
    { name: 'keep', type: 'boolean', description: `Keep the model in ${join(tmpdir(), 'kerneltune-demo')} and reuse it next time.` },
    { name: 'space', type: 'string', description: 'Replace dimensions of the quick sweep space, as JSON: {"threads":["1","2"]}.', valueName: 'JSON' },
    { name: 'reps', type: 'integer', description: 'Repetitions per combination at most.', default: SWEEP_DEFAULTS.quick.maxReps, min: 2, max: 100 },
    { name: 'prompt-tokens', type: 'integer', description: 'Prompt length per repetition.', default: SWEEP_DEFAULTS.quick.promptTokens, min: 1 },
    { name: 'gen-tokens', type: 'integer', description: 'Tokens generated per repetition.', default: SWEEP_DEFAULTS.quick.genTokens, min: 2 },
    { name: 'slo', type: 'string', description: `Latency objectives the choice must meet, NAME=MS comma-separated (default ${DEMO_SLO_TEXT}: ${DEMO_SLO_WHY}).`, valueName: 'NAME=MS[,...]' },
    { name: 'db', type: 'string', description: 'Store the sweep\'s run here (default: the embedded store, where History and `kerneltune run show` find it).', valueName: 'PATH' },
    { name: 'gate', type: 'string', description: 'Decide by this quality gate of the sweep instead of the latency objectives (regression: no metric may worsen by more than 5%).', choices: ['topk5', 'pareto', 'regression', 'manual'] },
    { name: 'no-serve', type: 'boolean', description: "Skip the last step: launching the engine's server with the recommended command line and measuring it under concurrent load." },
    { name: 'no-build', type: 'boolean', description: "When no server binary exists, skip the serving step with instructions instead of building it (about 17 CPU-minutes, once)." },
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
    const since = (t: number) => (Date.now() - t) / 1000
    step('detecting this machine and probing memory bandwidth')
    const detected = await detectHardware()
    const spec = specFromDetected(detected)
    const tDetect = since(t0)
    const keepDir = f.outDir ? resolve(io.cwd, f.outDir) : f.keep ? join(tmpdir(), 'kerneltune-demo') : undefined
    const dir = keepDir ?? mkdtempSync(join(tmpdir(), 'kerneltune-demo-'))
    const t1 = Date.now()
    try {
      let bar: ReturnType<typeof progressBar> | undefined
      const model = await demoModel({ dir, params: f.params ?? DEFAULTS.params, quant: (f.quant ?? DEFAULTS.quant) as SynthQuant, onStart: (p, reused) => step(`${reused ? 'reusing' : 'synthesizing'} ${p}`), onProgress: (w, total) => (bar ??= progressBar(io, 'writing', Math.ceil(total / 1e6))).update(Math.floor(w / 1e6), 'MB') })
      bar?.done('MB')
      const path = model.path
      const tSynth = since(t1)
      const tp = Date.now()
      const maxReps = f.reps ?? SWEEP_DEFAULTS.quick.maxReps
      const d = { promptTokens: f.promptTokens ?? SWEEP_DEFAULTS.quick.promptTokens, genTokens: f.genTokens ?? SWEEP_DEFAULTS.quick.genTokens, minReps: Math.min(maxReps, SWEEP_DEFAULTS.quick.minReps), maxReps }
      const prediction = predictDemo(spec, detected.cpu.model, (await (await import('@kerneltune/features/node')).fromGguf(path)).model, d)
      const { decode: dec, prefill: pre } = prediction
      const tPredict = since(tp)
      step("measuring the defaults, then sweeping the engine's settings (quick mode)")
      const plan = planSweep('quick', spec, detected.cpu.threads, f.space ? parseSpace(f.space) : undefined)
      const t2 = Date.now()
      let baselineDone = t2
      const gate = f.gate ?? SWEEP_GATE_DEFAULTS.gate
      const store = await sweepStore(io, f.db)
      const { decided, ...sweep } = await executeSweep(io, {
        store, hardware: spec, modelPath: path, plan, promptTokens: d.promptTokens, genTokens: d.genTokens, warmups: 1, minReps: d.minReps, maxReps: d.maxReps,
        earlyStop: true, noiseFloor: 0.05, gate, metric: 'decodeTps', epsilon: SWEEP_GATE_DEFAULTS.epsilon, margin: SWEEP_GATE_DEFAULTS.margin,
        onBaselineDone: () => void (baselineDone = Date.now()),
        // The sweep's flags that plan and measure the same, so `kerneltune sweep --resume` can continue the demo's run.
        session: { spec: sweepSpecOf({ gguf: path, quick: true, ...(f.space ? { space: f.space } : {}), reps: d.maxReps, minReps: d.minReps, warmup: 1, promptTokens: d.promptTokens, genTokens: d.genTokens, gate, metric: 'decodeTps' }, detected.cpu.threads) },
      }).finally(() => store.close())
      // The objectives decide unless a gate was asked for (issue 25); with --gate, the stored run's verdict.
      const byObjectives = f.gate === undefined ? await decideDemo(sweep, objectivesFromFlags({ slo: f.slo ?? DEMO_SLO_TEXT })!.slo, d.genTokens, path) : undefined
      const chosen = byObjectives ? byObjectives.winner : decided.winner?.combo
      const recommendedArgv = byObjectives ? byObjectives.recommendedArgv : decided.recommendedArgv ?? []
      const tMeasure = (baselineDone - t2) / 1000
      const tSweep = since(baselineDone)
      const t3 = Date.now()
      const served = f.noServe ? { skipped: '--no-serve', binarySeconds: 0, built: false } : await demoServe({ modelPath: path, combo: chosen ?? {}, promptTokens: d.promptTokens, outputTokens: d.genTokens, build: f.noBuild !== true, say: step })
      const phases = { detect: tDetect, synth: tSynth, predict: tPredict, measure: tMeasure, sweep: tSweep, binary: served.binarySeconds, serve: since(t3) - served.binarySeconds }
      const timing = { from: origin.from, startedAt: new Date(origin.at).toISOString(), llamaServer: 'skipped' in served ? 'skipped' : served.built ? 'built' : 'cached' }
      const b = sweep.baseline.stats
      const measurement = { combo: {}, device: sweep.device, reps: sweep.baseline.reps.length, warmups: 1, promptTokens: d.promptTokens, genTokens: d.genTokens, decodeTps: b.decodeTps, prefillTps: b.prefillTps, ttftMs: b.ttftMs }
      if (ctx.json) {
        const serving = 'skipped' in served ? { skipped: served.skipped } : { ...sessionJson(served.session), ...(served.buildSeconds ? { buildSeconds: served.buildSeconds } : {}) }
        ctx.printJson({ ok: true, measured: true, dashboard: { running: false, url: DASHBOARD_URL, start: 'kerneltune serve' }, hardware: { detected, spec }, model, prediction, measurement, sweep: { ...sweep, ...decisionJson(sweep, decided), space: plan.space, pruned: plan.pruned, catalog: plan.catalog }, decidedBy: byObjectives ? 'objectives' : 'gate', ...(byObjectives ? { objectives: demoDecisionJson(byObjectives) } : {}), recommendedArgv, serving, seconds: wallSeconds(origin, t0, phases, Date.now()), timing })
        return
      }
      const s = model.shape
      const w = chosen ? [sweep.baseline, ...sweep.combos].find((c) => c.combo === chosen) : undefined
      const pct = (x: number | undefined, p: DemoPhase) => fmt((x ?? NaN) / p.predictedTps * 100, 0)
      const capNote = (p: DemoPhase) => (p.capped ? `capped: the regressor said ${fmt(p.rawTps)}` : 'below it')
      const iv = (p: DemoPhase) => (p.interval ? `, 90% interval ${fmt(p.interval.low)}–${fmt(p.interval.high)}` : '')
      const unseen = [...new Set([...(dec.extrapolation ?? []), ...(pre.extrapolation ?? [])])]
      io.stdout(`== 1. This machine\n${keyValues([
        ['cpu', `${detected.cpu.model}, ${detected.cpu.cores} cores / ${detected.cpu.threads} threads, ${fmt(detected.cpu.ramGb)} GiB RAM`],
        ['gpu', detected.gpus.length ? detected.gpus.map((g) => g.name).join(', ') : `none (nvidia-smi ${detected.nvidiaSmi})`],
        ['memory bandwidth', `${fmt(spec.memBwGbs, 1)} GB/s (${spec.sources[0] ?? 'preset'})`],
      ])}`)
      io.stdout(`\n== 2. Model (${model.reused ? 'reused' : `synthesized in ${fmt(tSynth, 1)} s`}; random weights: meaningless text, real speed)\n${keyValues([['file', `${path} (${fmt(model.bytes / 1e6, 1)} MB)`], ['shape', `llama, ${fmt(model.params / 1e6, 1)}M params, ${model.quant}: hidden ${s.hidden}, layers ${s.layers}, heads ${s.heads}, ffn ${s.ffn}, vocab ${s.vocab}`]])}`)
      io.stdout(`\n== 3. PREDICTION (pretrained regressor ${prediction.predictor}, from the probed bandwidth; computed, not measured)\n${keyValues([
        ['decode', `${fmt(dec.predictedTps)} tok/s${iv(dec)} (roofline bound ${fmt(dec.rooflineTps)}, ${dec.binding}-bound; ${capNote(dec)})`],
        ['prefill', `${fmt(pre.predictedTps)} tok/s for ${d.promptTokens} prompt tokens${iv(pre)} (roofline bound ${fmt(pre.rooflineTps)}, ${pre.binding}-bound; ${capNote(pre)})`],
      ])}`)
      if (unseen.length) io.stdout(`(extrapolates: no training row has ${unseen.join(', ')}; the 90% interval was measured on chips of kinds the data has, so read it as a guide, not a guarantee. Three measurements and \`kerneltune calibrate\` fix that: docs/prediction-vs-measurement.md.)\n`)
      if (dec.capped || pre.capped) io.stdout('(capped: the regressor\'s own output exceeded the roofline bound, so the bound is the prediction. Its calibrate corrects it from a few measurements: docs/prediction-vs-measurement.md.)\n')
      io.stdout(`\n== 4. MEASUREMENT of the engine's defaults (in this process, ${measurement.reps} reps after 1 warm-up, ${d.promptTokens} prompt + ${d.genTokens} generated tokens)\n${keyValues([
        ['decode', `${fmt(b.decodeTps?.trimmedMean ?? NaN)} tok/s (trimmed mean; ${pct(b.decodeTps?.trimmedMean, dec)}% of the prediction)`],
        ['prefill', `${fmt(b.prefillTps?.trimmedMean ?? NaN)} tok/s (${pct(b.prefillTps?.trimmedMean, pre)}% of the prediction)`],
        ['TTFT', `${fmt(b.ttftMs?.trimmedMean ?? NaN, 2)} ms`],
      ])}`)
      io.stdout(`\n== 5. SWEEP (measured; quick mode: ${Object.entries(plan.space).map(([k, v]) => `${k} ${v.join('/')}`).join(' x ')}; ${plan.pruned.length} removed by the engine's rules)\n`)
      if (byObjectives) io.stdout(`(the gate column and the winner line are the ${sweep.gate.method} gate's view, shown for reference; the latency objectives decide, below)\n${renderSweep(sweep)}${renderDemoDecision(byObjectives)}`)
      else io.stdout(renderSweep(sweep))
      if (w) io.stdout(`the winner decodes at ${fmt(w.stats.decodeTps?.trimmedMean ?? NaN)} tok/s, ${pct(w.stats.decodeTps?.trimmedMean, dec)}% of the predicted ${fmt(dec.predictedTps)}\n`)
      io.stdout(`\n== Recommended command line\n${formatCommandLine({ argv: recommendedArgv })}\n`)
      if ('skipped' in served) io.stdout(`\n== 6. SERVING: skipped (${served.skipped})\n`)
      else {
        const [one, four] = served.session.levels
        io.stdout(`\n== 6. SERVING (measured: the recommended command line launched as the engine's server, streaming /v1/completions, ${d.promptTokens} prompt + ${d.genTokens} output tokens per request)\n${renderSession(served.session)}`)
        io.stdout(`in-process (one stream): ${fmt(w?.stats.decodeTps?.trimmedMean ?? b.decodeTps?.trimmedMean ?? NaN)} tok/s decode; as a server: ${fmt(1000 / (one?.metrics.tpotMs.mean ?? NaN))} tok/s per stream at 1 request in flight (1000 / TPOT), ${fmt(four?.metrics.outputTokensPerSecond ?? NaN)} output tok/s in total at 4\n`)
      }
      if (!keepDir) io.stdout('(the model was temporary and is removed now; pass --keep or --out-dir DIR to keep it)\n')
      io.stdout(`\n== Dashboard (not running: the demo starts no server and leaves none behind)\n${DASHBOARD_HINT}\n`)
      io.stdout(`\n${renderWallTime(origin, wallSeconds(origin, t0, phases, Date.now()), timing.llamaServer)}\nNext: kerneltune sweep --gguf ${keepDir ? path : 'FILE'} (standard mode), kerneltune measure --help\n`)
    } finally {
      if (!keepDir) rmSync(dir, { recursive: true, force: true })
    }
  },
})
