/**
 * @module @kerneltune/compose/bench
 * The serving benchmarks and the demo as calls (Node): `benchServe` (a server under load at one or
 * more levels, judged by latency objectives) and `benchCapacity` (the highest load at which it
 * meets them), each stored as a run through the tuner; the server a command names (`benchTarget`),
 * for any engine with a serving capability; the JSON they print; and the demo's steps (its model,
 * prediction, decision by latency objectives, serving step and wall time). The CLI's `bench` and
 * `demo` commands parse flags, call these and print.
 *
 * @example
 * ```ts
 * import { benchServe } from '@kerneltune/compose/bench'
 * const r = await benchServe({ cwd: '.', env: {}, engine: 'llamacpp', gguf: 'm.gguf', concurrency: '1,4', requests: 16, warmup: 1, promptTokens: 64, outputTokens: 32, api: 'completions', seed: 1, readyTimeout: 120, noStore: true })
 * console.log(r.session.levels.map((l) => l.metrics.ttftMs.p99))
 * ```
 */
export { benchCapacity, type BenchCapacityOptions, type BenchCapacityResult } from './bench/capacity.node.ts'
export { levelJson, sessionJson } from './bench/json.ts'
export { assessLevels, benchServe, parseCombo, parseLevels, type BenchServeOptions, type BenchServeResult } from './bench/serve.node.ts'
export { answeredBy, engineOf, storeBenchRun, type BenchLevel, type BenchRun } from './bench/store-run.node.ts'
export { benchTarget, type TargetFlags } from './bench/target.node.ts'
export { servingEngine } from './compose.node.ts'
export { demoModel, type DemoModel } from './demo/model.node.ts'
export { decideDemo, demoDecisionJson, demoLabel, DEMO_SLO_TEXT, DEMO_SLO_WHY, type DemoDecision } from './demo/objectives.ts'
export { predictDemo, type DemoPhase, type DemoPrediction } from './demo/predict.ts'
export { demoServe, type DemoServeInput, type DemoServeResult } from './demo/serve.node.ts'
export { demoOrigin, PHASES, renderWallTime, wallSeconds, type DemoOrigin, type Phase, type PhaseSeconds } from './demo/timing.ts'
