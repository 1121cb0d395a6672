/**
 * The serving replay of issue 39: Tier 2 over llama-server settings ranked by goodput, replayed
 * from the reference that bench/server-tier2.bench.ts measured and committed
 * (bench/results/server-tier2.json: 144 legal combinations, 72 of which fail to run because a
 * slot's context is smaller than the prompt, 27 that run but miss the latency objectives). No
 * server is started: each suggestion is looked up in that table.
 *
 * The optimiser is told what server-tier2 tells it: -goodput for a feasible combination, 0 for
 * one infeasible by objective, a failure for one that failed to run. The parameters are
 * categorical, as packages/tuner's sessions declare them. Reported per budget (10, 20, 40) and
 * strategy (bo, tpe, random, and server-tier2's strided grid): the best feasible goodput found as
 * a fraction of the table's best (median and mean over the seeds), and the evaluations spent on
 * failures and on infeasible combinations.
 *
 *   tsx --conditions=@kerneltune/source bench/bayesian-optimizer-serving.bench.ts --seeds dev|report [--bo '{...}'] [--out PATH]
 *
 * Development used seeds 1001-1010 (the issue's, and server-tier2's reported ones); the reported
 * run uses 2001-2010, never used while the optimizer was being chosen.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { replaySearch, type BoOptions, type ReplayTable, type StrategyName } from '@kerneltune/bayesian-optimizer'
import { loadSnapshot, median } from './support/load.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1]! : dflt
}
const WHICH = arg('seeds', 'dev')
if (WHICH !== 'dev' && WHICH !== 'report') throw new Error('--seeds is dev or report')
const SEEDS = Array.from({ length: 10 }, (_, i) => i + (WHICH === 'dev' ? 1001 : 2001))
const BO: BoOptions = JSON.parse(arg('bo', '{}')) as BoOptions
const OUT = arg('out', join(HERE, 'results', `bayesian-optimizer-serving${WHICH === 'dev' ? '-dev' : ''}.json`))
const BUDGETS = [10, 20, 40]

type Combo = Record<string, string>
interface Row { index: number; combo: Combo; outcome: 'feasible' | 'infeasible' | 'failed'; goodput: number | null }
const ref = JSON.parse(readFileSync(join(HERE, 'results', 'server-tier2.json'), 'utf8')) as { space: Record<string, string[]>; reference: { rows: Row[] } }
const SPACE = ref.space
const rows = [...ref.reference.rows].sort((a, b) => a.index - b.index)
const bestGoodput = Math.max(...rows.filter((r) => r.outcome === 'feasible').map((r) => r.goodput!))
const table: ReplayTable = {
  params: Object.entries(SPACE).map(([name, values]) => ({ name, type: 'categorical' as const, values })),
  objective: 'goodput',
  rows: rows.map((r) => ({ config: { ...r.combo }, ok: r.outcome !== 'failed', status: r.outcome === 'failed' ? 'failed' : 'ok', ...(r.outcome !== 'failed' ? { value: r.outcome === 'feasible' ? -r.goodput! : 0 } : {}) })),
  optimum: -bestGoodput,
}
const key = (c: Record<string, unknown>) => JSON.stringify(Object.keys(SPACE).map((k) => String(c[k])))
const byKey = new Map(rows.map((r) => [key(r.combo), r]))

/** server-tier2's grid: every k-th legal combination in enumeration order, the seed picking the offset. */
function grid(budget: number, seed: number): Combo[] {
  const k = Math.max(1, Math.floor(rows.length / budget))
  const out: Combo[] = []
  for (let i = seed % k; out.length < budget && i < rows.length; i += k) out.push(rows[i]!.combo)
  return out
}
function summary(combos: readonly Record<string, unknown>[]) {
  const xs = combos.map((c) => byKey.get(key(c))!)
  const found = xs.filter((x) => x.outcome === 'feasible').map((x) => x.goodput!)
  return { bestFraction: found.length ? Math.max(...found) / bestGoodput : 0, failed: xs.filter((x) => x.outcome === 'failed').length, infeasible: xs.filter((x) => x.outcome === 'infeasible').length }
}
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length

const before = loadSnapshot()
const comparison: Record<string, Record<string, unknown>> = {}
for (const budget of BUDGETS) {
  comparison[budget] = {}
  for (const strategy of ['bo', 'tpe', 'random', 'grid'] as const) {
    const runs = SEEDS.map((seed) => summary(strategy === 'grid' ? grid(budget, seed) : replaySearch(table, { strategy: strategy as StrategyName, seed, budget, ...(strategy === 'bo' ? { bo: BO } : {}) }).trace.map((t) => t.params)))
    const col = (f: (x: (typeof runs)[number]) => number) => runs.map(f)
    comparison[budget]![strategy] = {
      medianBestFraction: median(col((x) => x.bestFraction)),
      meanBestFraction: mean(col((x) => x.bestFraction)),
      meanFailed: mean(col((x) => x.failed)),
      meanInfeasible: mean(col((x) => x.infeasible)),
      bestFraction: col((x) => x.bestFraction),
      failed: col((x) => x.failed),
      infeasible: col((x) => x.infeasible),
    }
  }
}
const result = {
  benchmark: 'bayesian-optimizer-serving',
  seeds: { used: SEEDS, kind: WHICH === 'dev' ? 'development seeds (1001-1010)' : 'reported seeds (2001-2010), never used in development' },
  source: 'bench/results/server-tier2.json reference rows (measured llama-server runs)',
  combinations: { legal: rows.length, feasible: rows.filter((r) => r.outcome === 'feasible').length, infeasible: rows.filter((r) => r.outcome === 'infeasible').length, failed: rows.filter((r) => r.outcome === 'failed').length, bestGoodput },
  bo: BO,
  machine: { before, after: loadSnapshot() },
  comparison,
}
writeFileSync(OUT, JSON.stringify(result, null, 1) + '\n')
for (const [b, row] of Object.entries(comparison)) {
  console.log(`budget ${b}: ${Object.entries(row).map(([s, x]) => { const r = x as { medianBestFraction: number; meanBestFraction: number; meanFailed: number }; return `${s} median ${(r.medianBestFraction * 100).toFixed(1)}% mean ${(r.meanBestFraction * 100).toFixed(1)}% failed ${r.meanFailed.toFixed(1)}` }).join('; ')}`)
}
