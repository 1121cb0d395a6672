/**
 * A reference for bench/serving-noise.bench.ts measured by another method (issue 23 item 12).
 * That bench's own reference is 100 rounds of the interleaved design, the design it judges, whose
 * A/A arm read -5.7% (p = 0.035) in the committed run: the design was judged only by itself.
 * Here each setting of its candidate list (the defaults, threads 1, one server slot, flash
 * attention off) and the defaults a second time (the A/A setting) are measured on a quiet machine,
 * with no noise added, in BLOCKS blocks each: a block is a fresh llama-server, one warm-up wave,
 * then REPS back-to-back repetitions of the same load as the noise bench's sequential design
 * (REQUESTS requests of 16 prompt + 32 output tokens, 4 in flight; the metric is output tokens/s).
 *
 * Why a fresh server per block: the interleaved design keeps one server per arm for a whole
 * sweep, so whatever one launch has (thread placement, memory layout) reads as that arm's effect,
 * and it cannot tell; several launches per setting average over it, and the test counts blocks,
 * not repetitions (bench/support/serving-reference.ts: Yuen's test on the blocks' trimmed means).
 * Why the blocks of one round go in a seeded random order: a slow drift of the machine over the
 * run (heat, other jobs starting) then falls on no setting in particular.
 *
 * At the end it judges the decisions of the committed noise-bench results (RESULTS, default
 * serving-noise and serving-noise-quiet) against both references, the interleaved one in each
 * file and this one, and writes everything to bench/results/$RESULT.json.
 *
 *   pnpm bench serving-reference     (BLOCKS=10, REPS=8, REQUESTS=16, SEED=1, RESULT=serving-reference)
 *   pnpm exec tsx --conditions=@kerneltune/source bench/serving-noise-report.ts   (the judgement again, from the files)
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Combo } from '@kerneltune/core'
import { LLAMACPP_VERSION, llamacppServerEngine } from '@kerneltune/engines-llamacpp'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { seededRandom, shuffled } from '@kerneltune/serving'
import { requireLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { serverBackend } from '@kerneltune/backends/node'
import type { Verdict } from './support/serving-noise-summary.ts'
import { judgeFiles, printJudged } from './support/serving-noise-judge.ts'
import { BLOCK_TRIM, REP_TRIM, blockCv, compareBlocks, type Block } from './support/serving-reference.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const env = (name: string, fallback: number) => {
  const v = Number(process.env[name] ?? fallback)
  if (!(Number.isInteger(v) && v >= 1)) throw new Error(`${name} must be a whole number >= 1, got ${process.env[name]}`)
  return v
}
const BLOCKS = env('BLOCKS', 10)
const REPS = env('REPS', 8)
const REQUESTS = env('REQUESTS', 16)
const SEED = env('SEED', 1)
const OUTPUT = 32
const RESULT = process.env.RESULT ?? 'serving-reference'
const RESULTS = (process.env.RESULTS ?? 'serving-noise,serving-noise-quiet').split(',').filter(Boolean)

const SETTINGS: { label: string; combo: Combo }[] = [
  { label: 'defaults', combo: {} },
  { label: 'defaults (A/A)', combo: {} },
  { label: 'threads=1', combo: { threads: '1' } },
  { label: 'parallel=1', combo: { parallel: '1' } },
  { label: 'flash_attn=off', combo: { flash_attn: 'off' } },
]
const uptime = () => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim()
  } catch {
    return `load average: ${loadavg().map((x) => x.toFixed(2)).join(', ')}`
  }
}

const binary = requireLlamaServer(LLAMACPP_VERSION).path
const dir = mkdtempSync(join(tmpdir(), 'serving-reference-'))
const model = join(dir, 'm15.gguf')
await writeGgufFile(model, synthLlama({ params: 15e6, quant: 'Q8_0', seed: 1 }).file)
// No keepServers: every measure() call launches a server, warms it, measures and stops it.
const backend = serverBackend({
  target: { kind: 'engine', engine: llamacppServerEngine({ binary }), binary, model },
  load: { workload: { kind: 'synthetic', promptTokens: 16, outputTokens: OUTPUT }, requests: REQUESTS },
  level: { concurrency: 4 },
  useRequestWorkload: false,
})

const before = { uptime: uptime(), at: new Date().toISOString() }
const random = seededRandom(SEED)
const blocks: (Block & { round: number; position: number; seconds: number; loadAverage: number; error?: string })[] = []
const t0 = performance.now()
for (let round = 0; round < BLOCKS; round++) {
  const order = shuffled(random, SETTINGS)
  for (const [position, s] of order.entries()) {
    const load = loadavg()[0]!
    const t = performance.now()
    try {
      const r = await backend.measure({ combo: s.combo, repetitions: REPS, warmups: 1 })
      const values = r.repetitions.map((x) => x.decodeTps).filter((v): v is number => v !== undefined && Number.isFinite(v))
      blocks.push({ label: s.label, round: round + 1, position: position + 1, seconds: (performance.now() - t) / 1000, loadAverage: load, values })
    } catch (e) {
      blocks.push({ label: s.label, round: round + 1, position: position + 1, seconds: (performance.now() - t) / 1000, loadAverage: load, values: [], error: String(e instanceof Error ? e.message : e).slice(0, 300) })
    }
  }
  console.error(`round ${round + 1}/${BLOCKS}: ${((performance.now() - t0) / 1000).toFixed(0)} s, load ${loadavg()[0]!.toFixed(2)}`)
}
rmSync(dir, { recursive: true, force: true })
const after = { uptime: uptime(), at: new Date().toISOString() }

const perCombo: Record<string, Verdict & { blocks: number; baselineBlocks: number }> = {}
for (const s of SETTINGS.slice(2)) perCombo[s.label] = compareBlocks(blocks, s.label, 'defaults')
const aa = compareBlocks(blocks, 'defaults (A/A)', 'defaults')
const cvs = Object.fromEntries(SETTINGS.map((s) => [s.label, blockCv(blocks, s.label)]))

// The committed trials of the noise bench, judged against its own (interleaved) reference and this one.
const judged = judgeFiles(join(HERE, 'results'), RESULTS, perCombo)

const result = {
  measured: true,
  device: `CPU: ${cpus()[0]?.model.trim()} (${cpus().length} logical cores)`,
  server: `llama-server ${LLAMACPP_VERSION} (${binary})`,
  model: 'synthetic llama 15M Q8_0 (random weights)',
  machine: { before, after, note: 'no noise added: run on a quiet machine' },
  method: `${BLOCKS} blocks per setting, the blocks of a round in a seeded random order (seed ${SEED}); a block is a fresh llama-server (--metrics), one warm-up wave of 4 requests, then ${REPS} back-to-back repetitions of ${REQUESTS} requests (16 prompt + ${OUTPUT} output tokens, closed loop, 4 in flight); metric decodeTps = output tokens/s of a repetition's load. A block's value is the ${REP_TRIM * 100}% trimmed mean of its repetitions; a setting is compared with the defaults by Yuen's test on the block values (${BLOCK_TRIM * 100}% trimmed), p < 0.05 decides. The A/A setting is the defaults measured as a setting of its own.`,
  settings: SETTINGS.map((s) => s.label),
  perCombo,
  aa,
  blockCv: cvs,
  seconds: (performance.now() - t0) / 1000,
  judged,
  blocks,
  at: after.at,
}
mkdirSync(join(HERE, 'results'), { recursive: true })
writeFileSync(join(HERE, 'results', `${RESULT}.json`), JSON.stringify(result, null, 2) + '\n')

const pct = (v: Verdict) => `${(v.improvement * 100).toFixed(1)}% p=${v.p.toPrecision(2)} (${v.verdict})`
console.error(`before: ${before.uptime}\nafter:  ${after.uptime}`)
const rows: [string, typeof aa][] = [...Object.entries(perCombo), ['defaults (A/A)', aa]]
console.table(Object.fromEntries(rows.map(([k, v]) => [k, { 'vs defaults': pct(v), blocks: `${v.blocks} vs ${v.baselineBlocks}`, 'block CV': cvs[k]!.toFixed(3) }])))
printJudged(judged)
