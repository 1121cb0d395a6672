/**
 * Replays every development search space (gemm_* and convolution_* in ../shared/data/autotuning;
 * the dedispersion_* files are reserved for evaluation and never read here) with BO, TPE and
 * random search over 20 seeds, and records how many evaluations each needs to come within 5% and
 * 1% of the space's best time, the best-so-far curves, and the time one suggestion takes after
 * 200 observations. Writes bench/results/bayesian-optimizer.json and .svg.
 *
 *   pnpm bench bayesian-optimizer            (or: tsx --conditions=@kerneltune/source bench/bayesian-optimizer.bench.ts --seeds 20 --shards 2)
 *   tsx --conditions=@kerneltune/source bench/bayesian-optimizer.bench.ts --timings-only   (suggestion latency only)
 *
 * Runs stop once within 1% (the curves carry that best forward, which can only overstate the
 * remaining gap) or at the strategy's cap: BO 200, TPE 400, random the whole space. A count not
 * reached within the cap is null (censored). The runs are split over `--shards` child processes
 * (one per core); the suggestion timings are taken afterwards with nothing else of ours running.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { createSearch, parseReplayCsv, replaySearch, type ReplayTable, type StrategyName } from '@kerneltune/bayesian-optimizer'
import { buildReport, renderSvg, type Run, type Timing } from './bayesian-optimizer-report.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const DATA = process.env.KERNELTUNE_DATA ?? join(HERE, '..', '..', 'shared', 'data', 'autotuning')
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1]! : dflt
}
const SEEDS = Number(arg('seeds', '20'))
const SHARDS = Number(arg('shards', '2'))
const SHARD = arg('shard', '')
const STRATEGIES: StrategyName[] = ['bo', 'tpe', 'random']
const CURVE = 200
const CAPS = { bo: 200, tpe: 400, random: Infinity } as const
const OUT = join(HERE, 'results')

if (!existsSync(DATA)) {
  console.error(`skipped: ${DATA} is absent (the measured search spaces are read at run time, never committed)`)
  process.exit(0)
}
// Development spaces only, selected by explicit prefix.
const FILES = readdirSync(DATA).filter((f) => /^(gemm_|convolution_).*\.csv$/.test(f)).sort()
const tables = new Map<string, ReplayTable>()
const table = (f: string) => tables.get(f) ?? tables.set(f, parseReplayCsv(readFileSync(join(DATA, f), 'utf8'))).get(f)!

function runOne(file: string, strategy: StrategyName, seed: number): Run {
  const t = table(file)
  const r = replaySearch(t, { strategy, seed, budget: Math.min(CAPS[strategy], t.rows.length), target: t.optimum * 1.01 })
  const first = (f: number) => r.trace.find((e) => e.best !== null && e.best <= t.optimum * f)?.evaluation ?? null
  const curve = r.trace.slice(0, CURVE).map((e) => (e.best === null ? null : e.best / t.optimum))
  return { file, strategy, seed, to5: first(1.05), to1: first(1.01), evaluations: r.trace.length, curve }
}

/** Median and worst time of one ask() at 200, 201, … observations (after a random start and one warm-up ask). */
function timeAsk(file: string, strategy: StrategyName): Timing {
  const t = table(file)
  const byKey = new Map(t.rows.map((r) => [JSON.stringify(t.params.map((p) => r.config[p.name])), r]))
  const s = createSearch({ strategy, seed: 7, space: { params: t.params, validConfigs: t.rows.map((r) => r.config) }, bo: { initial: 199 }, tpe: { initial: 199 } })
  const tell = (c: Record<string, string | number | boolean>) => {
    const row = byKey.get(JSON.stringify(t.params.map((p) => c[p.name])))!
    s.tell(row.ok ? { config: c, value: row.value!, ...(row.variance !== undefined ? { variance: row.variance } : {}) } : { config: c, failed: true })
  }
  for (const c of s.ask(199)) tell(c)
  for (const c of s.ask(1)) tell(c) // warm-up at 199: the first model fit starts cold (60 steps), later asks warm-start
  const ms: number[] = []
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now()
    const c = s.ask(1)
    ms.push(performance.now() - t0)
    tell(c[0]!)
  }
  ms.sort((a, b) => a - b)
  return { file, strategy, observations: 200, medianMs: ms[3]!, maxMs: ms[6]!, samples: ms }
}

// --timings-only: re-measure just the suggestion latency (quick, and best run on an idle
// machine), written to its own file so the long search-quality results stay as they were.
if (process.argv.includes('--timings-only')) {
  mkdirSync(OUT, { recursive: true })
  const load = loadavg()
  const timings = FILES.flatMap((f) => STRATEGIES.map((s) => timeAsk(f, s)))
  const out = { benchmark: 'bayesian-optimizer-timing', date: new Date().toISOString(), machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, loadAverageBeforeTiming: load, loadAverageAfterTiming: loadavg() }, timings }
  writeFileSync(join(OUT, 'bayesian-optimizer-timing.json'), JSON.stringify(out, null, 1) + '\n')
  for (const t of timings) console.log(`${t.file} ${t.strategy}: median ${t.medianMs.toFixed(1)} ms, max ${t.maxMs.toFixed(1)} ms (7 asks after 200 observations)`)
  process.exit(0)
}

const tasks = FILES.flatMap((file) => STRATEGIES.flatMap((strategy) => Array.from({ length: SEEDS }, (_, seed) => ({ file, strategy, seed }))))

if (SHARD) {
  const [i, k] = SHARD.split('/').map(Number) as [number, number]
  const runs: Run[] = []
  tasks.forEach((task, n) => {
    if (n % k !== i) return
    const t0 = performance.now()
    const run = runOne(task.file, task.strategy, task.seed)
    runs.push(run)
    console.error(`[${i}] ${task.file} ${task.strategy} seed ${task.seed}: 5% at ${run.to5 ?? '-'}, 1% at ${run.to1 ?? '-'} (${((performance.now() - t0) / 1000).toFixed(1)} s)`)
  })
  writeFileSync(join(OUT, `.bayesian-optimizer.shard-${i}.json`), JSON.stringify(runs))
  process.exit(0)
}

mkdirSync(OUT, { recursive: true })
const started = Date.now()
const load0 = loadavg()
const script = fileURLToPath(import.meta.url)
await Promise.all(
  Array.from({ length: SHARDS }, (_, i) => new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, script, '--shard', `${i}/${SHARDS}`, '--seeds', String(SEEDS)], { stdio: ['ignore', 'inherit', 'inherit'] })
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`shard ${i} exited with ${code}`))))
  })),
)
const runs: Run[] = []
for (let i = 0; i < SHARDS; i++) {
  const p = join(OUT, `.bayesian-optimizer.shard-${i}.json`)
  runs.push(...(JSON.parse(readFileSync(p, 'utf8')) as Run[]))
  rmSync(p)
}
const loadBeforeTiming = loadavg()
const timings = FILES.flatMap((f) => STRATEGIES.map((s) => timeAsk(f, s)))
const spaces = FILES.map((f) => {
  const t = table(f)
  return { file: f, configurations: t.rows.length, failed: t.rows.filter((r) => !r.ok).length, optimum: t.optimum }
})
const report = buildReport({ spaces, runs, timings, seeds: SEEDS, caps: { bo: CAPS.bo, tpe: CAPS.tpe, random: 'whole space' } })
const result = {
  benchmark: 'bayesian-optimizer',
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, loadAverageAtStart: load0, loadAverageBeforeTiming: loadBeforeTiming },
  wallSeconds: (Date.now() - started) / 1000,
  ...report,
}
writeFileSync(join(OUT, 'bayesian-optimizer.json'), JSON.stringify(result, null, 1) + '\n')
writeFileSync(join(OUT, 'bayesian-optimizer.svg'), renderSvg(report))
console.log(JSON.stringify(report.summary, null, 2))
