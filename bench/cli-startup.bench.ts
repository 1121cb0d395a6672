/**
 * How fast the CLI starts (issue 24): wall time from spawn to exit of `--help` and of one
 * `translate`, from source (tsx) and from the built package (node), next to what the runtime
 * itself costs: tsx on an empty file, and `node -e 0`. The six cases run interleaved, REPS rounds,
 * each round in a rotated order, so that a change in the machine's load hits every case alike;
 * the targets are ratios of medians from this one run:
 *   source: --help and translate ≤ 1.5 × tsx on an empty file
 *   built:  --help and translate ≤ 3 × node -e 0
 * The built cases need the CLI and its workspace dependencies built first:
 *   npx turbo run build --filter=@kerneltune/cli...
 * Writes bench/results/cli-startup.json (machine, load averages, date, repetitions, every sample).
 *
 *   pnpm bench cli-startup        (REPS=21)
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const REPS = Number(process.env.REPS ?? 21)
if (!(Number.isInteger(REPS) && REPS >= 1)) throw new Error(`REPS must be a whole number >= 1, got ${process.env.REPS}`)
const BIN = join(ROOT, 'apps/cli/bin/kerneltune.js')
if (!existsSync(join(ROOT, 'apps/cli/dist/main.js'))) throw new Error('apps/cli/dist is missing: run npx turbo run build --filter=@kerneltune/cli... first')

const TSX = join(ROOT, 'node_modules/.bin/tsx')
const EMPTY = join(mkdtempSync(join(tmpdir(), 'cli-startup-')), 'empty.ts')
writeFileSync(EMPTY, '')
const COMBO = '{"attention_backend":"flashinfer"}'
const TRANSLATE = ['translate', '--engine', 'vllm', '--combo', COMBO]
const SOURCE = ['--conditions=@kerneltune/source', 'apps/cli/src/main.ts']

interface Case { readonly id: string; readonly label: string; readonly cmd: string; readonly args: readonly string[]; readonly expect?: string }
const CASES: readonly Case[] = [
  { id: 'a', label: 'tsx empty.ts', cmd: TSX, args: [EMPTY] },
  { id: 'b', label: 'tsx main.ts --help', cmd: TSX, args: [...SOURCE, '--help'], expect: 'Usage: kerneltune' },
  { id: 'c', label: 'tsx main.ts translate', cmd: TSX, args: [...SOURCE, ...TRANSLATE], expect: '--attention-backend' },
  { id: 'd', label: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
  { id: 'e', label: 'node bin/kerneltune.js --help', cmd: process.execPath, args: [BIN, '--help'], expect: 'Usage: kerneltune' },
  { id: 'f', label: 'node bin/kerneltune.js translate', cmd: process.execPath, args: [BIN, ...TRANSLATE], expect: '--attention-backend' },
]

function time(c: Case): number {
  const t0 = performance.now()
  const r = spawnSync(c.cmd, c.args, { cwd: ROOT, encoding: 'utf8' })
  const seconds = (performance.now() - t0) / 1000
  if (r.status !== 0 || (c.expect && !r.stdout.includes(c.expect))) throw new Error(`${c.label} failed (exit ${r.status}): ${r.stderr.slice(-1000)}`)
  return seconds
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
const load = () => loadavg().map((x) => Number(x.toFixed(2)))

for (const c of CASES) time(c) // warm the file cache and tsx's transform cache; not counted
const startedAt = new Date().toISOString()
const loadBefore = load()
const samples: Record<string, number[]> = Object.fromEntries(CASES.map((c) => [c.id, []]))
const loadPerRound: number[] = []
for (let r = 0; r < REPS; r++) {
  for (let i = 0; i < CASES.length; i++) {
    const c = CASES[(i + r) % CASES.length]!
    samples[c.id]!.push(time(c))
  }
  loadPerRound.push(loadavg()[0]!)
}
const loadAfter = load()
const med = Object.fromEntries(CASES.map((c) => [c.id, median(samples[c.id]!)])) as Record<string, number>
const ratio = (x: string, base: string) => Number((med[x]! / med[base]!).toFixed(2))
const targets = [
  { case: 'b', over: 'a', ratio: ratio('b', 'a'), target: 1.5 },
  { case: 'c', over: 'a', ratio: ratio('c', 'a'), target: 1.5 },
  { case: 'e', over: 'd', ratio: ratio('e', 'd'), target: 3 },
  { case: 'f', over: 'd', ratio: ratio('f', 'd'), target: 3 },
].map((t) => ({ ...t, met: t.ratio <= t.target }))

let commit = ''
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
} catch {}
const result = {
  bench: 'cli-startup',
  startedAt,
  finishedAt: new Date().toISOString(),
  commit,
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)), node: process.version, platform: process.platform },
  loadAverage: { before: loadBefore, after: loadAfter, oneMinutePerRound: loadPerRound.map((x) => Number(x.toFixed(2))) },
  repetitions: REPS,
  note: 'seconds from spawn to exit; rounds interleave the cases in a rotated order; built cases need npx turbo run build --filter=@kerneltune/cli...',
  cases: CASES.map((c) => ({ id: c.id, label: c.label, medianSeconds: Number(med[c.id]!.toFixed(3)), samples: samples[c.id]!.map((s) => Number(s.toFixed(3))) })),
  targets,
}
mkdirSync(join(ROOT, 'bench/results'), { recursive: true })
writeFileSync(join(ROOT, 'bench/results/cli-startup.json'), JSON.stringify(result, null, 2) + '\n')
for (const c of result.cases) console.log(`${c.id}  ${c.label.padEnd(34)} median ${c.medianSeconds.toFixed(3)} s`)
for (const t of targets) console.log(`${t.case}/${t.over} = ${t.ratio} (target ≤ ${t.target}): ${t.met ? 'met' : 'NOT met'}`)
console.log(`load average before ${loadBefore.join(' ')}, after ${loadAfter.join(' ')}; wrote bench/results/cli-startup.json`)
