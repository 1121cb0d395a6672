/**
 * How long `npm run demo` takes, as a new user runs it (issue 23 item 7): RUNS times end to end,
 * each the whole command (its install check, pnpm, tsx, the demo and its clean-up), timed here from
 * spawn to exit, next to the demo's own breakdown by phase (its --json `seconds` and `timing`).
 * The README and `kerneltune demo --help` quote the median wall time of these runs. Run it on a
 * quiet machine with the workspace installed and llama-server built (the build, about 17
 * CPU-minutes once, is not what a second run of the demo costs); the load average before and
 * after every run is recorded.
 * Writes bench/results/demo-timing.json.
 *
 *   pnpm bench demo-timing     (RUNS=3)
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = join(HERE, '..')
const RUNS = Number(process.env.RUNS ?? 3)
if (!(Number.isInteger(RUNS) && RUNS >= 1)) throw new Error(`RUNS must be a whole number >= 1, got ${process.env.RUNS}`)

const uptime = () => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim()
  } catch {
    return `load average: ${loadavg().map((x) => x.toFixed(2)).join(', ')}`
  }
}

/** Runs `npm run demo -- --json`; its stdout ends with the demo's JSON report (pnpm's install log comes first). */
function demo(): Promise<{ wallSeconds: number; code: number | null; report: Record<string, unknown> | undefined; stderrTail: string }> {
  return new Promise((resolve) => {
    const t0 = performance.now()
    const child = spawn('npm', ['run', '--silent', 'demo', '--', '--json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    child.once('exit', (code) => {
      const wallSeconds = (performance.now() - t0) / 1000
      const start = out.search(/^\{$/m)
      let report: Record<string, unknown> | undefined
      try {
        report = start >= 0 ? (JSON.parse(out.slice(start)) as Record<string, unknown>) : undefined
      } catch {
        report = undefined
      }
      resolve({ wallSeconds, code, report, stderrTail: err.slice(-2000) })
    })
  })
}

const runs = []
for (let i = 0; i < RUNS; i++) {
  const before = { uptime: uptime(), loadAverage1m: loadavg()[0]!, at: new Date().toISOString() }
  const r = await demo()
  const after = { uptime: uptime(), loadAverage1m: loadavg()[0]!, at: new Date().toISOString() }
  if (r.code !== 0 || !r.report) {
    console.error(r.stderrTail)
    throw new Error(`npm run demo failed (exit ${r.code}${r.report ? '' : ', no JSON report'}) on run ${i + 1}`)
  }
  const serving = r.report.serving as { skipped?: string } | undefined
  runs.push({ run: i + 1, wallSeconds: r.wallSeconds, demoSeconds: r.report.seconds, timing: r.report.timing, serving: serving?.skipped ? `skipped: ${serving.skipped}` : 'measured', before, after })
  console.error(`run ${i + 1}: ${r.wallSeconds.toFixed(1)} s wall (the demo's own total ${(r.report.seconds as { total: number }).total.toFixed(1)} s); ${after.uptime}`)
}
const walls = runs.map((r) => r.wallSeconds).sort((a, b) => a - b)
const median = walls.length % 2 ? walls[(walls.length - 1) / 2]! : (walls[walls.length / 2 - 1]! + walls[walls.length / 2]!) / 2
const result = {
  measured: true,
  what: 'wall time of `npm run demo -- --json` from spawn to exit, the whole command: install check (pnpm install --frozen-lockfile on an installed workspace), start-up (pnpm, tsx, loading the CLI), detection with the bandwidth probe, model synthesis (15M Q8_0, into a temporary folder), prediction, measurement of the defaults, the quick sweep, finding llama-server (built beforehand), serving at 1 and 4 in flight, report and clean-up',
  device: `CPU: ${cpus()[0]?.model.trim()} (${cpus().length} logical cores), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM`,
  runs: RUNS,
  medianWallSeconds: median,
  minWallSeconds: walls[0],
  maxWallSeconds: walls[walls.length - 1],
  perRun: runs,
  at: new Date().toISOString(),
}
mkdirSync(join(HERE, 'results'), { recursive: true })
writeFileSync(join(HERE, 'results', 'demo-timing.json'), JSON.stringify(result, null, 2) + '\n')
console.table(runs.map((r) => ({ run: r.run, 'wall s': r.wallSeconds.toFixed(1), ...Object.fromEntries(Object.entries(r.demoSeconds as Record<string, number>).map(([k, v]) => [k, v.toFixed(1)])), 'load before': r.before.loadAverage1m.toFixed(2) })))
console.error(`median ${median.toFixed(1)} s over ${RUNS} run(s)`)
