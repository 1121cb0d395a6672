/**
 * The noisy-machine comparison of the two sweep designs, on a real llama-server under concurrent
 * load (a synthetic 15M Q8_0 llama; random weights, real timings):
 *   sequential  — today's runSweep: the defaults first, then each candidate in turn, with early
 *                 termination; compared unpaired (trimmed means, Welch/Yuen) against the defaults.
 *   interleaved — runInterleavedSweep: every arm once per round in a seeded random order, paired
 *                 per round, given the same wall-clock budget the sequential run just used.
 * Both designs see the same candidates plus an A/A arm (the defaults measured as if a candidate):
 * a design that crowns the A/A arm has produced a false winner. Trials alternate the designs so
 * the machine's load (other jobs on this shared 2-core box) falls on both alike.
 * Writes bench/results/serving-noise.json. Needs llama-server (tooling/scripts/build-llama-server.sh).
 *
 *   pnpm bench serving-noise            (TRIALS=3 by default; results are rewritten after every trial)
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
import { serverBackend } from '../packages/backends/src/node.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const TRIALS = Number(process.env.TRIALS ?? 3)
const binary = requireLlamaServer(LLAMACPP_VERSION).path
const dir = mkdtempSync(join(tmpdir(), 'serving-noise-'))
const model = join(dir, 'm15.gguf')
await writeGgufFile(model, synthLlama({ params: 15e6, quant: 'Q8_0', seed: 1 }).file)

// The A/A arm: a combo the sweep treats as a candidate (batch_size 4096 is a legal value) that the
// backend measures as the defaults. Whatever the statistics make of it is a false difference.
const AA: Combo = { batch_size: '4096' }
const isAa = (c: Combo) => c.batch_size === '4096'
const real = serverBackend({
  target: { kind: 'engine', engine: llamacppServerEngine({ binary }), binary, model, extraArgs: ['--metrics'] },
  load: { workload: { kind: 'synthetic', promptTokens: 16, outputTokens: 8 }, requests: 4 },
  level: { concurrency: 4 },
  useRequestWorkload: false,
})
const backend: MeasurementBackend = { ...real, measure: (r) => real.measure({ ...r, combo: isAa(r.combo) ? {} : r.combo }) }
const candidates: { combo: Combo }[] = [{ combo: { threads: '1' } }, { combo: { flash_attn: 'off' } }, { combo: { cache_type_v: 'q8_0' } }]

interface Trial { design: 'sequential' | 'interleaved'; seconds: number; decided: number; candidates: number; falseWinner: boolean; aaVerdict: string; winner: string | null; measurements: number; perCombo: Record<string, { verdict: string; improvement: number; p: number }> }
const trials: Trial[] = []
const label = (c: Combo) => Object.entries(c).map(([k, v]) => `${k}=${v}`).join(' ') || 'defaults'

function write() {
  const sum = (d: Trial['design']) => {
    const ts = trials.filter((x) => x.design === d)
    const decided = ts.reduce((a, x) => a + x.decided, 0)
    const total = ts.reduce((a, x) => a + x.candidates, 0)
    return { trials: ts.length, decisionRate: decided / total, decided, comparisons: total, falseWinners: ts.filter((x) => x.falseWinner).length, meanSeconds: ts.reduce((a, x) => a + x.seconds, 0) / ts.length, meanMeasurements: ts.reduce((a, x) => a + x.measurements, 0) / ts.length }
  }
  const result = {
    measured: true,
    device: `CPU: ${cpus()[0]?.model.trim()} (${cpus().length} logical cores), shared with other jobs`,
    server: `llama-server ${LLAMACPP_VERSION} (${binary})`,
    model: 'synthetic llama 15M Q8_0 (random weights)',
    load: 'closed loop, concurrency 4, 4 requests of 16 prompt + 8 output tokens per measurement (after 4 warm-up requests); one server launch per measurement',
    metric: 'decodeTps = output tokens/s of the whole load',
    candidates: candidates.map((c) => label(c.combo)),
    summary: { sequential: sum('sequential'), interleaved: sum('interleaved') },
    trials,
    at: new Date().toISOString(),
  }
  mkdirSync(join(HERE, 'results'), { recursive: true })
  writeFileSync(join(HERE, 'results', 'serving-noise.json'), JSON.stringify(result, null, 2) + '\n')
  return result
}

for (let t = 0; t < TRIALS; t++) {
  const t0 = performance.now()
  let calls = 0
  const counted: MeasurementBackend = { ...backend, measure: (r) => (calls++, backend.measure(r)) }
  const seq = await runSweep({ backend: counted, candidates: [...candidates, { combo: AA }], model, metric: 'decodeTps' })
  const seqSeconds = (performance.now() - t0) / 1000
  const perSeq: Trial['perCombo'] = {}
  for (const c of seq.combos) {
    const cmp = c.comparison.decodeTps
    perSeq[label(c.combo)] = { verdict: c.error ? 'failed' : (cmp?.verdict ?? 'n/a'), improvement: cmp?.improvement ?? Number.NaN, p: cmp?.welch.pValue ?? Number.NaN }
  }
  const seqAa = perSeq[label(AA)]!
  trials.push({
    design: 'sequential', seconds: seqSeconds, measurements: calls,
    decided: candidates.filter((c) => !['indistinguishable', 'n/a', 'failed'].includes(perSeq[label(c.combo)]!.verdict)).length,
    candidates: candidates.length,
    falseWinner: seq.winner !== undefined && isAa(seq.winner.combo) || seqAa.verdict === 'better',
    aaVerdict: seqAa.verdict, winner: seq.winner ? label(seq.winner.combo) : null, perCombo: perSeq,
  })
  console.error(`trial ${t + 1} sequential: ${seqSeconds.toFixed(0)} s, ${calls} measurements, ${seq.verdict}`)

  const t1 = performance.now()
  calls = 0
  const inter = await runInterleavedSweep({ backend: counted, candidates, model, engine: llamacppServerEngine(), rounds: 50, timeBudgetMs: seqSeconds * 1000, seed: 100 + t, metric: 'decodeTps' })
  const perInt: Trial['perCombo'] = {}
  for (const c of inter.combos) {
    const p = c.paired.decodeTps
    perInt[label(c.combo)] = { verdict: c.error ? 'failed' : (p?.verdict ?? 'n/a'), improvement: p?.improvement ?? Number.NaN, p: p?.pValue ?? Number.NaN }
  }
  trials.push({
    design: 'interleaved', seconds: (performance.now() - t1) / 1000, measurements: calls,
    decided: candidates.filter((c) => !['indistinguishable', 'n/a', 'failed'].includes(perInt[label(c.combo)]!.verdict)).length,
    candidates: candidates.length,
    falseWinner: inter.aa.declaredWinner || inter.aa.comparison?.verdict === 'better',
    aaVerdict: inter.aa.comparison?.verdict ?? 'n/a', winner: inter.winner ? label(inter.winner.combo) : null, perCombo: perInt,
  })
  write()
  console.error(`trial ${t + 1} interleaved: ${inter.seconds.toFixed(0)} s, ${inter.rounds} rounds, ${inter.verdict}; A/A ${inter.aa.comparison?.verdict} (sign-flip false-winner rate ${inter.aa.falseWinnerRate?.toFixed(3)})`)
}
rmSync(dir, { recursive: true, force: true })
console.table(Object.entries(write().summary).map(([design, s]) => ({ design, trials: s.trials, 'decision rate': `${s.decided}/${s.comparisons}`, 'false winners': `${s.falseWinners}/${s.trials}`, 'mean s': s.meanSeconds.toFixed(0), 'mean measurements': s.meanMeasurements.toFixed(1) })))
