/**
 * The noisy-machine comparison of the two sweep designs, on a real llama-server under concurrent
 * load (a synthetic 15M Q8_0 llama; random weights, real timings):
 *   sequential  — today's runSweep: the defaults first, then each candidate in turn, with early
 *                 termination; compared unpaired (trimmed means, Welch/Yuen) against the defaults.
 *   interleaved — runInterleavedSweep: every arm once per round in a seeded random order, paired
 *                 per round, given the same wall-clock budget the sequential run just used.
 * Both designs see the same candidates plus an A/A arm (the defaults measured as if a candidate,
 * on a server of its own): a design that crowns the A/A arm has produced a false winner. Trials
 * alternate the designs so the machine's load (other jobs on this shared 2-core box) falls on
 * both alike.
 * Servers: both designs keep a combination's llama-server running between its measurements
 * (serverBackend keepServers). Sequential never returns to a combination, so it keeps one (its
 * early-termination chunks of a candidate share it); interleaved keeps one per arm for the whole
 * sweep, so a repetition is warm-up + load, not a launch. Launch counts are in the results.
 * The interleaved budget includes its launches (all in round 1, whose length also inflates the
 * per-round estimate that stops it).
 * Writes bench/results/serving-noise.json. Needs llama-server (tooling/scripts/build-llama-server.sh).
 *
 *   pnpm bench serving-noise            (TRIALS=6 by default; results are rewritten after every trial)
 *   MAX_REPS=10 RESULT=serving-noise-long pnpm bench serving-noise    (a larger budget for both)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Combo, MeasurementBackend } from '../packages/core/src/index.ts'
import { LLAMACPP_VERSION, llamacppServerEngine, runInterleavedSweep, runSweep } from '../packages/engines-llamacpp/src/index.ts'
import { synthLlama } from '../packages/gguf/src/index.ts'
import { writeGgufFile } from '../packages/gguf/src/node.ts'
import { requireLlamaServer } from '../packages/serving/src/node.ts'
import { serverBackend, type ServerBackend } from '../packages/backends/src/node.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const TRIALS = Number(process.env.TRIALS ?? 6)
// One measurement: REQUESTS requests of 16 prompt + OUTPUT output tokens, 4 at a time. With no
// launch per measurement, a measurement is this load alone; 4 x 8 tokens (~0.1 s here) was
// mostly noise, 16 x 32 is about a second.
const REQUESTS = Number(process.env.REQUESTS ?? 16)
const OUTPUT = Number(process.env.OUTPUT ?? 32)
// The sequential design's repetitions at most (runSweep's default 5): its time is the budget both
// designs get, so a larger value gives both more time. RESULT names the results file.
const MAX_REPS = Number(process.env.MAX_REPS ?? 5)
const RESULT = process.env.RESULT ?? 'serving-noise'
const binary = requireLlamaServer(LLAMACPP_VERSION).path
const dir = mkdtempSync(join(tmpdir(), 'serving-noise-'))
const model = join(dir, 'm15.gguf')
await writeGgufFile(model, synthLlama({ params: 15e6, quant: 'Q8_0', seed: 1 }).file)

// The A/A arm: a combo the sweep treats as a candidate (batch_size 4096 is a legal value) that the
// backend measures as the defaults. Whatever the statistics make of it is a false difference.
const AA: Combo = { batch_size: '4096' }
const isAa = (c: Combo) => c.batch_size === '4096'
// What the A/A arm launches: the defaults (cont_batching=on adds no flag) under a key of its own, so
// the kept-servers pool gives it its own server, as a candidate has, in both designs.
const AA_RUN: Combo = { cont_batching: 'on' }
function backendFor(max: number): ServerBackend & { measure: MeasurementBackend['measure'] } {
  const real = serverBackend({
    target: { kind: 'engine', engine: llamacppServerEngine({ binary }), binary, model, extraArgs: ['--metrics'] },
    load: { workload: { kind: 'synthetic', promptTokens: 16, outputTokens: OUTPUT }, requests: REQUESTS },
    level: { concurrency: 4 },
    useRequestWorkload: false,
    keepServers: { max },
  })
  return { ...real, measure: (r) => real.measure({ ...r, combo: isAa(r.combo) ? AA_RUN : r.combo }) }
}
const candidates: { combo: Combo }[] = [{ combo: { threads: '1' } }, { combo: { flash_attn: 'off' } }, { combo: { cache_type_v: 'q8_0' } }]

interface Trial { design: 'sequential' | 'interleaved'; seconds: number; launches: number; secondsPerMeasurement: number; baselineCv: number; overBudget: boolean; decided: number; candidates: number; falseWinner: boolean; aaVerdict: string; winner: string | null; measurements: number; perCombo: Record<string, { verdict: string; improvement: number; p: number }> }
const trials: Trial[] = []
/** Coefficient of variation of the baseline's decode rate: the noise a single measurement carries. */
const cv = (reps: readonly { decodeTps?: number }[]) => {
  const x = reps.map((r) => r.decodeTps).filter((v): v is number => v !== undefined)
  const m = x.reduce((a, b) => a + b, 0) / x.length
  return Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1)) / m
}
const label = (c: Combo) => Object.entries(c).map(([k, v]) => `${k}=${v}`).join(' ') || 'defaults'

function write() {
  const sum = (d: Trial['design']) => {
    const ts = trials.filter((x) => x.design === d)
    const decided = ts.reduce((a, x) => a + x.decided, 0)
    const total = ts.reduce((a, x) => a + x.candidates, 0)
    return { trials: ts.length, decisionRate: decided / total, decided, comparisons: total, falseWinners: ts.filter((x) => x.falseWinner).length, aaSignificant: ts.filter((x) => x.aaVerdict === 'better' || x.aaVerdict === 'worse').length, meanSeconds: ts.reduce((a, x) => a + x.seconds, 0) / ts.length, meanMeasurements: ts.reduce((a, x) => a + x.measurements, 0) / ts.length, meanLaunches: ts.reduce((a, x) => a + x.launches, 0) / ts.length, meanSecondsPerMeasurement: ts.reduce((a, x) => a + x.secondsPerMeasurement, 0) / ts.length, meanBaselineCv: ts.reduce((a, x) => a + x.baselineCv, 0) / ts.length, overBudget: ts.filter((x) => x.overBudget).length }
  }
  const result = {
    measured: true,
    device: `CPU: ${cpus()[0]?.model.trim()} (${cpus().length} logical cores), shared with other jobs`,
    server: `llama-server ${LLAMACPP_VERSION} (${binary})`,
    model: 'synthetic llama 15M Q8_0 (random weights)',
    load: `closed loop, concurrency 4, ${REQUESTS} requests of 16 prompt + ${OUTPUT} output tokens per measurement (after 4 warm-up requests); servers kept running between a combination\'s measurements (sequential: the current one; interleaved: one per arm for the whole sweep)`,
    fairness: 'interleaved gets the wall-clock seconds the sequential design used in the same trial, launches included; it always runs 2 rounds (the paired minimum), so a trial where that alone overran is counted in overBudget',
    decision: 'a candidate is decided when its comparison with the defaults is significant (p < 0.05) either way: better or worse; sequential: Welch/Yuen on trimmed means, interleaved: paired t-test on per-round log ratios. A false winner is an A/A arm (the defaults against themselves) called better; aaSignificant counts A/A arms called better or worse (a false decision either way).',
    metric: 'decodeTps = output tokens/s of the whole load',
    candidates: candidates.map((c) => label(c.combo)),
    sequentialMaxReps: MAX_REPS,
    summary: { sequential: sum('sequential'), interleaved: sum('interleaved') },
    trials,
    at: new Date().toISOString(),
  }
  mkdirSync(join(HERE, 'results'), { recursive: true })
  writeFileSync(join(HERE, 'results', `${RESULT}.json`), JSON.stringify(result, null, 2) + '\n')
  return result
}

for (let t = 0; t < TRIALS; t++) {
  const t0 = performance.now()
  let calls = 0
  const seqBackend = backendFor(1)
  const counted = (b: ServerBackend): MeasurementBackend => ({ ...b, measure: (r) => (calls++, b.measure(r)) })
  const seq = await runSweep({ backend: counted(seqBackend), candidates: [...candidates, { combo: AA }], model, metric: 'decodeTps', maxReps: MAX_REPS }).finally(() => seqBackend.close())
  const seqSeconds = (performance.now() - t0) / 1000
  const perSeq: Trial['perCombo'] = {}
  for (const c of seq.combos) {
    const cmp = c.comparison.decodeTps
    perSeq[label(c.combo)] = { verdict: c.error ? 'failed' : (cmp?.verdict ?? 'n/a'), improvement: cmp?.improvement ?? Number.NaN, p: cmp?.welch.pValue ?? Number.NaN }
  }
  const seqAa = perSeq[label(AA)]!
  trials.push({
    design: 'sequential', seconds: seqSeconds, measurements: calls, launches: seqBackend.poolStats()!.launches, secondsPerMeasurement: seqSeconds / calls, baselineCv: cv(seq.baseline.reps), overBudget: false,
    decided: candidates.filter((c) => !['indistinguishable', 'n/a', 'failed'].includes(perSeq[label(c.combo)]!.verdict)).length,
    candidates: candidates.length,
    falseWinner: seq.winner !== undefined && isAa(seq.winner.combo) || seqAa.verdict === 'better',
    aaVerdict: seqAa.verdict, winner: seq.winner ? label(seq.winner.combo) : null, perCombo: perSeq,
  })
  console.error(`trial ${t + 1} sequential: ${seqSeconds.toFixed(0)} s, ${calls} measurements, ${seq.verdict}`)

  const t1 = performance.now()
  calls = 0
  const intBackend = backendFor(candidates.length + 2)
  const inter = await runInterleavedSweep({ backend: counted(intBackend), candidates, model, engine: llamacppServerEngine(), aaCombo: AA_RUN, rounds: 50, timeBudgetMs: seqSeconds * 1000, seed: 100 + t, metric: 'decodeTps' }).finally(() => intBackend.close())
  // Counted like the sequential run's seconds: from the start to the last server stopped.
  const intSeconds = (performance.now() - t1) / 1000
  const perInt: Trial['perCombo'] = {}
  for (const c of inter.combos) {
    const p = c.paired.decodeTps
    perInt[label(c.combo)] = { verdict: c.error ? 'failed' : (p?.verdict ?? 'n/a'), improvement: p?.improvement ?? Number.NaN, p: p?.pValue ?? Number.NaN }
  }
  trials.push({
    design: 'interleaved', seconds: intSeconds, measurements: calls, launches: intBackend.poolStats()!.launches, secondsPerMeasurement: intSeconds / calls, baselineCv: cv(inter.baseline.reps), overBudget: intSeconds > seqSeconds,
    decided: candidates.filter((c) => !['indistinguishable', 'n/a', 'failed'].includes(perInt[label(c.combo)]!.verdict)).length,
    candidates: candidates.length,
    falseWinner: inter.aa.declaredWinner || inter.aa.comparison?.verdict === 'better',
    aaVerdict: inter.aa.comparison?.verdict ?? 'n/a', winner: inter.winner ? label(inter.winner.combo) : null, perCombo: perInt,
  })
  write()
  console.error(`trial ${t + 1} interleaved: ${inter.seconds.toFixed(0)} s, ${inter.rounds} rounds, ${inter.verdict}; A/A ${inter.aa.comparison?.verdict} (sign-flip false-winner rate ${inter.aa.falseWinnerRate?.toFixed(3)})`)
}
rmSync(dir, { recursive: true, force: true })
console.table(Object.entries(write().summary).map(([design, s]) => ({ design, trials: s.trials, 'decision rate': `${s.decided}/${s.comparisons}`, 'false winners': `${s.falseWinners}/${s.trials}`, 'A/A significant': `${s.aaSignificant}/${s.trials}`, 'mean s': s.meanSeconds.toFixed(0), 'mean measurements': s.meanMeasurements.toFixed(1), 'mean launches': s.meanLaunches.toFixed(1), 's/measurement': s.meanSecondsPerMeasurement.toFixed(2), 'baseline CV': s.meanBaselineCv.toFixed(3), 'over budget': s.overBudget })))
