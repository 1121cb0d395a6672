/**
 * The noisy-machine comparison of the two sweep designs, on real llama-servers under concurrent
 * load (a synthetic 15M Q8_0 llama; random weights, real timings):
 *   sequential  — runSweep: the defaults first, then each candidate in turn, with early
 *                 termination; compared unpaired (trimmed means, Welch/Yuen) against the defaults.
 *   interleaved — runInterleavedSweep: every arm once per round in a seeded random order, compared
 *                 with the defaults of the same rounds (the 20% trimmed mean of the log ratios, a
 *                 sign-flip p-value: exact up to 14 rounds, else from 10,000 random sign
 *                 patterns; each verdict records which), given the wall-clock seconds the sequential run just
 *                 used, launches included. The same measurements are also judged by a t-test on
 *                 the mean log ratio and by the blocked test (noise pooled over the arms).
 * Both see the same candidates (the quick serving space's one-setting changes: threads 1, one
 * server slot, flash attention off) plus an A/A arm (the defaults measured as if a candidate, on a
 * server of its own): a design that crowns the A/A arm has produced a false winner.
 *
 * The noise: with NOISE=bursts (default) each design run has a noisy neighbour
 * (bench/support/noise-maker.mjs: 0 to NOISE_MAX spinning threads, the level redrawn after
 * exponential dwell times of mean NOISE_MEAN_MS), seeded by the trial, so both designs of a trial
 * face the same schedule of load from their start; whatever else runs on the machine comes on top.
 * NOISE=none leaves only the machine's own load. Trials alternate the designs.
 *
 * The truth: a decision is only as good as its direction. After the trials, a reference run of
 * REFERENCE_ROUNDS interleaved rounds under the same noise estimates each candidate's effect; a
 * decision that the reference confirms with the same sign agrees, one with the opposite sign
 * contradicts it, and the rest are unconfirmed.
 *
 * Servers: both designs keep a combination's llama-server running between its measurements
 * (sequential: the current one; interleaved: one per arm for the whole sweep).
 * Writes bench/results/$RESULT.json after every trial. Needs llama-server
 * (tooling/scripts/build-llama-server.sh).
 *
 *   pnpm bench serving-noise     (TRIALS=6, MAX_REPS=5, NOISE=bursts, NOISE_MAX=2, NOISE_MEAN_MS=3000, REFERENCE_ROUNDS=100)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Combo, MeasurementBackend } from '@kerneltune/core'
import { LLAMACPP_VERSION, llamacppServerEngine, withoutDefaults, withoutServingDefaults } from '@kerneltune/engines-llamacpp'
import { compareRounds, runInterleavedSweep, runSweep, signFlipMethodOf, type InterleavedSweepResult, type PairedComparison } from '@kerneltune/experiment'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { requireLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { serverBackend, type ServerBackend } from '@kerneltune/backends/node'
import { startNoise, type NoiseReport } from './support/noise.ts'
import { summarizeDesign, type Trial, type Verdict } from './support/serving-noise-summary.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const TRIALS = env('TRIALS', 6)
// Trial t draws its noise schedule from seed 1000 + SEED_BASE + t and its round orders from 100 +
// SEED_BASE + t. The committed runs before 2026-11-26 14:00 UTC (development and reported) all used
// SEED_BASE 0; a run judging a design change uses a base no earlier run used, and records it.
const SEED_BASE = env('SEED_BASE', 0)
// One measurement: REQUESTS requests of 16 prompt + OUTPUT output tokens, 4 at a time. The
// interleaved design measures VISIT_REQUESTS per visit instead (default one wave, 4): it spends the
// same budget on more, shorter visits, so a round is short next to the load's changes and its
// arms see the same load; the sequential design's repetitions are back to back, so shortening
// them would only shrink the budget both designs get.
const REQUESTS = env('REQUESTS', 16)
const VISIT_REQUESTS = env('VISIT_REQUESTS', 4)
const OUTPUT = env('OUTPUT', 32)
// The sequential design's repetitions at most (runSweep's default 5): its time is both budgets.
const MAX_REPS = env('MAX_REPS', 5)
const NOISE = process.env.NOISE ?? 'bursts'
const NOISE_MAX = env('NOISE_MAX', 2)
const NOISE_MEAN_MS = env('NOISE_MEAN_MS', 3000)
const REFERENCE_ROUNDS = env('REFERENCE_ROUNDS', 100)
const RESULT = process.env.RESULT ?? 'serving-noise'
if (!['bursts', 'none'].includes(NOISE)) throw new Error(`NOISE must be bursts or none, got ${NOISE}`)

const binary = requireLlamaServer(LLAMACPP_VERSION).path
const dir = mkdtempSync(join(tmpdir(), 'serving-noise-'))
const model = join(dir, 'm15.gguf')
await writeGgufFile(model, synthLlama({ params: 15e6, quant: 'Q8_0', seed: 1 }).file)

// The A/A arm: a combo the sweep treats as a candidate (batch_size 4096 is a legal value) that the
// backend measures as the defaults, under a key of its own (cont_batching=on adds no flag), so the
// kept-servers pool gives it its own server as a candidate has. Any difference it shows is false.
const AA: Combo = { batch_size: '4096' }
const isAa = (c: Combo) => c.batch_size === '4096'
const AA_RUN: Combo = { cont_batching: 'on' }
const candidates: { combo: Combo }[] = [{ combo: { threads: '1' } }, { combo: { parallel: '1' } }, { combo: { flash_attn: 'off' } }]
const label = (c: Combo) => Object.entries(c).map(([k, v]) => `${k}=${v}`).join(' ') || 'defaults'

function backendFor(max: number, requests: number): ServerBackend {
  const real = serverBackend({
    target: { kind: 'engine', engine: llamacppServerEngine({ binary }), binary, model },
    load: { workload: { kind: 'synthetic', promptTokens: 16, outputTokens: OUTPUT }, requests },
    level: { concurrency: 4 },
    useRequestWorkload: false,
    keepServers: { max },
  })
  return { ...real, measure: (r) => real.measure({ ...r, combo: isAa(r.combo) ? AA_RUN : r.combo }) }
}
/** Counts measure() calls and the repetitions they returned. */
function counting(b: MeasurementBackend) {
  const count = { calls: 0, reps: 0 }
  return { count, backend: { ...b, measure: async (r: Parameters<MeasurementBackend['measure']>[0]) => (count.calls++, count.reps += r.repetitions, b.measure(r)) } as MeasurementBackend }
}
/** Coefficient of variation of the baseline's decode rate: the noise a single measurement carries. */
const cv = (reps: readonly { decodeTps?: number }[]) => {
  const x = reps.map((r) => r.decodeTps).filter((v): v is number => v !== undefined)
  const m = x.reduce((a, b) => a + b, 0) / x.length
  return Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1)) / m
}
const noiseFor = (seed: number) => (NOISE === 'bursts' ? startNoise({ seed, max: NOISE_MAX, meanMs: NOISE_MEAN_MS }) : undefined)
const undecided = new Set(['indistinguishable', 'n/a', 'failed'])
/** The sign-flip p-value's method and pattern count, so no reader takes a resampled p for an exact one. */
const signFlipLabel = (c: PairedComparison | undefined) => {
  const m = c && signFlipMethodOf(c)
  return m ? { pMethod: m.pMethod, patterns: m.patterns } : {}
}
const interleavedVerdicts = (r: InterleavedSweepResult): Record<string, Verdict> =>
  Object.fromEntries(r.combos.map((c) => {
    const p = c.paired.decodeTps
    return [label(c.combo), { verdict: c.error ? 'failed' : (p?.verdict ?? 'n/a'), improvement: p?.improvement ?? Number.NaN, p: p?.pValue ?? Number.NaN, df: p?.df ?? Number.NaN, ...signFlipLabel(p) }]
  }))

/**
 * The same interleaved measurements judged by another test (a t-test on the mean log ratio, or the
 * blocked test that pools the noise over the arms), to show what each would decide on this
 * machine's data; the sweep itself uses the sign-flip test of the trimmed mean.
 */
function reanalysed(r: InterleavedSweepResult, test: 'paired' | 'blocked'): { perCombo: Record<string, Verdict>; aa: Verdict } {
  const arms = [r.baseline.reps, r.aa.reps, ...r.combos.map((c) => c.reps)]
  const table = Array.from({ length: r.rounds }, (_, i) => arms.map((reps) => reps[i]?.decodeTps))
  const out = compareRounds(table, true, 0.05, test)
  const v = (i: number): Verdict => {
    const c = out[i]
    return { verdict: c?.verdict ?? 'n/a', improvement: c?.improvement ?? Number.NaN, p: c?.pValue ?? Number.NaN, df: c?.df ?? Number.NaN }
  }
  return { perCombo: Object.fromEntries(r.combos.map((c, i) => [label(c.combo), c.error ? { ...v(i + 2), verdict: 'failed' } : v(i + 2)])), aa: v(1) }
}

const trials: Trial[] = []
let reference: { rounds: number; seconds: number; noise?: NoiseReport; perCombo: Record<string, Verdict>; aa: Verdict } | undefined
function write() {
  const result = {
    measured: true,
    device: `CPU: ${cpus()[0]?.model.trim()} (${cpus().length} logical cores)`,
    server: `llama-server ${LLAMACPP_VERSION} (${binary})`,
    model: 'synthetic llama 15M Q8_0 (random weights)',
    load: `closed loop, concurrency 4, requests of 16 prompt + ${OUTPUT} output tokens: ${REQUESTS} per sequential repetition (4 warm-up requests before a combination's first), ${VISIT_REQUESTS} per interleaved visit (4 warm-up requests on an arm's first visit only); servers kept running between a combination's measurements`,
    noise: NOISE === 'bursts' ? `a noisy neighbour per design run: 0 to ${NOISE_MAX} spinning threads, redrawn after exponential dwell times of mean ${NOISE_MEAN_MS} ms, seeded by the trial (both designs of a trial get the same schedule); the machine's own load on top` : "none added: the machine's own load only",
    seeds: { base: SEED_BASE, noise: `1000 + ${SEED_BASE} + trial index (from 0)`, roundOrders: `100 + ${SEED_BASE} + trial index`, reference: 999 },
    fairness: 'interleaved gets the wall-clock seconds the sequential design used in the same trial, launches included; after its first 2 rounds it starts no measurement that the arm\'s last one says would end past the budget (the round it stops in counts as far as it got); overBudget counts trials where it still ran past, by the seconds in overBySeconds',
    decision: 'a candidate is decided when its comparison with the defaults is significant (p < 0.05), better or worse; sequential: Yuen/Welch on trimmed means, unpaired; interleaved: the sweep\'s default, the 20% trimmed mean of each arm\'s per-round log ratios with the sign-flip p-value (exact over all 2^n sign patterns up to 14 rounds, else resampled from 10,000 random patterns, so never below 1/10,001: pMethod and patterns in each verdict); interleaved-paired / interleaved-blocked: the same measurements judged by a t-test on the mean log ratio / by the blocked test (rounds as blocks, error variance pooled over the arms); winner not recomputed. A false winner is an A/A arm called better; aaSignificant counts A/A arms called better or worse. agreeing/contradicting: decisions with the same/opposite sign as a significant reference effect.',
    metric: 'decodeTps = output tokens/s of the whole load',
    candidates: candidates.map((c) => label(c.combo)),
    sequentialMaxReps: MAX_REPS,
    summary: Object.fromEntries((['sequential', 'interleaved', 'interleaved-paired', 'interleaved-blocked'] as const).map((d) => [d, summarizeDesign(trials, d, label(AA), reference?.perCombo)])),
    reference: reference ?? null,
    trials,
    at: new Date().toISOString(),
  }
  mkdirSync(join(HERE, 'results'), { recursive: true })
  writeFileSync(join(HERE, 'results', `${RESULT}.json`), JSON.stringify(result, null, 2) + '\n')
  return result
}

for (let t = 0; t < TRIALS; t++) {
  const load = loadavg()[0]!
  let noise = noiseFor(1000 + SEED_BASE + t)
  const t0 = performance.now()
  const seqBackend = backendFor(1, REQUESTS)
  const seqCount = counting(seqBackend)
  const seq = await runSweep({ backend: seqCount.backend, candidates: [...candidates, { combo: AA }], model, engine: llamacppServerEngine(), withoutDefaults: withoutServingDefaults, metric: 'decodeTps', maxReps: MAX_REPS }).finally(() => seqBackend.close())
  const seqSeconds = (performance.now() - t0) / 1000
  const seqNoise = await noise?.stop()
  const perSeq: Record<string, Verdict> = {}
  for (const c of seq.combos) {
    const cmp = c.comparison.decodeTps
    perSeq[label(c.combo)] = { verdict: c.error ? 'failed' : (cmp?.verdict ?? 'n/a'), improvement: cmp?.improvement ?? Number.NaN, p: cmp?.welch.pValue ?? Number.NaN, df: cmp?.welch.df ?? Number.NaN }
  }
  const seqAa = perSeq[label(AA)]!
  trials.push({
    design: 'sequential', trial: t + 1, loadAverage: load, seconds: seqSeconds, calls: seqCount.count.calls, repetitions: seqCount.count.reps, launches: seqBackend.poolStats()!.launches,
    baselineCv: cv(seq.baseline.reps), overBudget: false, ...(seqNoise ? { noise: seqNoise } : {}),
    decided: candidates.filter((c) => !undecided.has(perSeq[label(c.combo)]!.verdict)).length, candidates: candidates.length,
    falseWinner: (seq.winner !== undefined && isAa(seq.winner.combo)) || seqAa.verdict === 'better',
    aaVerdict: seqAa.verdict, winner: seq.winner ? label(seq.winner.combo) : null, perCombo: perSeq,
  })
  console.error(`trial ${t + 1} sequential: ${seqSeconds.toFixed(0)} s, ${seqCount.count.reps} repetitions, ${seq.verdict}`)

  noise = noiseFor(1000 + SEED_BASE + t)
  const t1 = performance.now()
  const intBackend = backendFor(candidates.length + 2, VISIT_REQUESTS)
  const intCount = counting(intBackend)
  const inter = await runInterleavedSweep({ backend: intCount.backend, candidates, model, engine: llamacppServerEngine(), withoutDefaults, aaCombo: AA_RUN, rounds: 10_000, timeBudgetMs: seqSeconds * 1000, seed: 100 + SEED_BASE + t, metric: 'decodeTps', revisitWarmups: 0 }).finally(() => intBackend.close())
  const intSeconds = (performance.now() - t1) / 1000
  const intNoise = await noise?.stop()
  const perInt = interleavedVerdicts(inter)
  trials.push({
    design: 'interleaved', trial: t + 1, loadAverage: loadavg()[0]!, seconds: intSeconds, calls: intCount.count.calls, repetitions: intCount.count.reps, launches: intBackend.poolStats()!.launches,
    baselineCv: cv(inter.baseline.reps), overBudget: intSeconds > seqSeconds, overBySeconds: Math.max(0, intSeconds - seqSeconds), rounds: inter.rounds, ...(intNoise ? { noise: intNoise } : {}),
    decided: candidates.filter((c) => !undecided.has(perInt[label(c.combo)]!.verdict)).length, candidates: candidates.length,
    falseWinner: inter.aa.declaredWinner || inter.aa.comparison?.verdict === 'better',
    aaVerdict: inter.aa.comparison?.verdict ?? 'n/a', winner: inter.winner ? label(inter.winner.combo) : null, perCombo: perInt,
  })
  const measured = trials[trials.length - 1]!
  for (const test of ['paired', 'blocked'] as const) {
    const again = reanalysed(inter, test)
    trials.push({
      ...measured, design: `interleaved-${test}`,
      decided: candidates.filter((c) => !undecided.has(again.perCombo[label(c.combo)]!.verdict)).length,
      falseWinner: again.aa.verdict === 'better', aaVerdict: again.aa.verdict, winner: null, perCombo: again.perCombo,
    })
  }
  write()
  console.error(`trial ${t + 1} interleaved: ${intSeconds.toFixed(0)} s, ${inter.rounds} rounds, ${inter.verdict}; A/A ${inter.aa.comparison?.verdict}`)
}

if (REFERENCE_ROUNDS >= 2) {
  const noise = noiseFor(999)
  const b = backendFor(candidates.length + 2, VISIT_REQUESTS)
  const r = await runInterleavedSweep({ backend: b, candidates, model, engine: llamacppServerEngine(), withoutDefaults, aaCombo: AA_RUN, rounds: REFERENCE_ROUNDS, seed: 999, metric: 'decodeTps', revisitWarmups: 0 }).finally(() => b.close())
  const c = r.aa.comparison
  reference = {
    rounds: r.rounds, seconds: r.seconds, ...(noise ? { noise: await noise.stop() } : {}), perCombo: interleavedVerdicts(r),
    aa: { verdict: c?.verdict ?? 'n/a', improvement: c?.improvement ?? Number.NaN, p: c?.pValue ?? Number.NaN, df: c?.df ?? Number.NaN, ...signFlipLabel(c) },
  }
  console.error(`reference (${r.rounds} rounds, ${r.seconds.toFixed(0)} s): ${Object.entries(reference.perCombo).map(([k, v]) => `${k} ${(v.improvement * 100).toFixed(1)}% p=${v.p.toPrecision(2)} (${v.pMethod ?? 'method n/a'}, ${v.patterns ?? '?'} patterns)`).join('; ')}`)
}
rmSync(dir, { recursive: true, force: true })
const { summary } = write()
console.table(Object.entries(summary).map(([design, s]) => ({ design, trials: s.trials, decisions: `${s.decided}/${s.comparisons}`, agreeing: s.agreeing, contradicting: s.contradicting, 'false winners': `${s.falseWinners}/${s.trials}`, 'A/A significant': `${s.aaSignificant}/${s.trials}`, 'mean s': s.meanSeconds.toFixed(0), 'mean reps': s.meanRepetitions.toFixed(1), 'baseline CV': s.meanBaselineCv.toFixed(3), 'over budget': s.overBudget })))
