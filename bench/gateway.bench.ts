/**
 * The bandit gateway in front of real llama-servers (issue 27): a synthetic 15M Q8_0 llama, three
 * arms whose goodput differs (the defaults, one slot, one thread), open-loop Poisson load at a
 * rate the defaults hold. Measured, in one run on this machine:
 *
 * 1. calibration: the defaults under closed-loop load give the rate (half their throughput) and
 *    the objectives (a multiple of their median TTFT and TPOT), both written to the results;
 * 2. the oracle: each arm alone at that rate, straight to its server (not through the gateway):
 *    its mean reward and miss rate with the gateway's reward function;
 * 3. the gateway's added latency: closed loop at concurrency 1, blocks alternating between the
 *    defaults' server directly and a one-arm gateway in front of it (TTFT and ITL, medians);
 * 4. Thompson sampling vs a fixed even split (epsilon-greedy with ε = 1: uniform at random) on
 *    the same seeded arrivals: cumulative regret against always choosing the oracle's best arm
 *    (pseudo-regret from the oracle means, and realised), best-arm share over time, misses;
 * 5. recovery: the oracle's best arm has its server SIGKILLed mid-run: requests lost,
 *    retried, time until it is relaunched and serving;
 * 6. drift: a neighbour load (busy processes, one per core) appears halfway; Thompson vs
 *    discounted Thompson, with the oracle re-measured under the neighbour.
 *
 * The machine is shared (other work runs on it): the load average is recorded before and after,
 * and every figure is from this one run. Writes bench/results/gateway.json.
 *
 * Every load has its own prompt seed: llama-server keeps a slot's tokens in its KV cache, so the
 * same prompts sent again are answered almost at once (the policy runs are therefore on the same
 * arrival process and rate, not the same arrivals).
 *
 *   pnpm bench gateway     (RUN_SECONDS=24, ORACLE_SECONDS=6, OVERHEAD_BLOCKS=3, OVERHEAD_REQUESTS=8, SEED=1)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Combo } from '@kerneltune/core'
import { LLAMACPP_VERSION, llamacppServerEngine } from '@kerneltune/engines-llamacpp'
import { judge, type Observation } from '@kerneltune/gateway'
import { startGateway, type Decision, type Gateway, type GatewayStatus } from '@kerneltune/gateway/node'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { formatSlo, parseSlo, runLoad, tpotOf, type LoadResult, type RequestRecord, type LatencyObjective } from '@kerneltune/serving'
import { findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import type { PolicyInput } from '@kerneltune/bandit'
import { median, uptimeLine } from './support/load.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
// Sizes follow the rate the calibration finds (the machine is shared and its speed varies by 10×
// from one hour to the next): a policy run lasts about RUN_SECONDS, an oracle about ORACLE_SECONDS.
const RUN_SECONDS = Number(process.env.RUN_SECONDS ?? 24)
const ORACLE_SECONDS = Number(process.env.ORACLE_SECONDS ?? 6)
const OVERHEAD_BLOCKS = Number(process.env.OVERHEAD_BLOCKS ?? 3)
const OVERHEAD_REQUESTS = Number(process.env.OVERHEAD_REQUESTS ?? 8)
const SEED = Number(process.env.SEED ?? 1)
const workload = { kind: 'synthetic', promptTokens: 32, outputTokens: 16 } as const
const ARMS: Record<string, Combo> = { defaults: {}, slots1: { parallel: '1' }, threads1: { threads: '1' } }
const t0 = Date.now()
const elapsed = () => ((Date.now() - t0) / 1000).toFixed(0)
const log = (m: string) => console.error(`[gateway bench ${elapsed()} s] ${m}`)

const uptime = uptimeLine
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN)
const observation = (r: RequestRecord): Observation => ({
  ok: r.ok, e2eMs: r.e2eMs, ttftMs: r.ttftMs, tpotMs: tpotOf(r), itlMs: r.itlMs.length ? mean(r.itlMs) : undefined, outputTokens: r.outputTokens,
})

const found = findLlamaServer(LLAMACPP_VERSION)
if (!found) {
  console.error('no llama-server binary: build it with tooling/scripts/build-llama-server.sh or set KERNELTUNE_LLAMA_SERVER')
  process.exit(1)
}
const dir = mkdtempSync(join(tmpdir(), 'kt-gateway-bench-'))
const model = join(dir, 'm15.gguf')
await writeGgufFile(model, synthLlama({ params: 15e6, quant: 'Q8_0', seed: 1 }).file)
const engine = llamacppServerEngine({ binary: found.path })
const before = { uptime: uptime(), loadAverage1m: loadavg()[0]!, at: new Date().toISOString() }
log(`start; ${before.uptime}`)

/** A gateway over the arms; the first call launches the servers, later ones reuse them as endpoints. */
let urls: Record<string, string> | undefined
let owner: Gateway | undefined
async function gateway(arms: readonly string[], policy: PolicyInput, objectives: readonly LatencyObjective[], onDecision?: (d: Decision) => void, launch = false): Promise<Gateway> {
  return startGateway({
    arms: arms.map((id) => launch
      ? { id, combo: ARMS[id]!, target: { kind: 'engine' as const, engine, binary: found!.path, model } }
      : { id, target: { kind: 'endpoint' as const, url: urls![id]! } }),
    fallback: 'defaults', objectives, policy, seed: SEED, ...(onDecision ? { onDecision } : {}), readyTimeoutMs: 180_000,
  })
}

// The launching gateway owns the three servers for the whole run; the phases put their own gateways (endpoint arms) in front of them.
owner = await gateway(Object.keys(ARMS), { kind: 'thompson' }, parseSlo('e2e_p99_ms=60000'), undefined, true)
urls = Object.fromEntries(Object.keys(ARMS).map((id) => [id, owner!.arm(id).baseUrl!]))
log(`servers up: ${Object.entries(urls).map(([k, v]) => `${k} ${v}`).join(', ')}`)

// 1. Calibration.
const cal = await runLoad({ baseUrl: urls.defaults!, workload, requests: 16, concurrency: 2, warmups: 4, seed: SEED })
const rate = Math.max(0.5, Math.round(cal.metrics.requestThroughput * 0.5 * 10) / 10)
const RUN_REQUESTS = Math.max(30, Math.min(200, Math.round(rate * RUN_SECONDS)))
const ORACLE_REQUESTS = Math.max(10, Math.min(40, Math.round(rate * ORACLE_SECONDS)))
const ttftBound = Math.max(50, Math.round(3 * cal.metrics.ttftMs.p50))
const tpotBound = Math.max(5, Math.round(2 * cal.metrics.tpotMs.p50 * 10) / 10)
const objectives = parseSlo(`ttft_p99_ms=${ttftBound},tpot_p99_ms=${tpotBound}`)
log(`calibration: defaults ${cal.metrics.requestThroughput.toFixed(2)} req/s at concurrency 2 → rate ${rate}/s, objectives ${formatSlo(objectives)}`)

// 2. Oracle: each arm alone at the rate.
async function oracle(tag: string) {
  const out: Record<string, { meanReward: number; missRate: number; ttftP50: number; tpotP50: number; goodputPerS: number; requests: number; failed: number }> = {}
  for (const id of Object.keys(ARMS)) {
    const r = await runLoad({ baseUrl: urls![id]!, workload, requests: ORACLE_REQUESTS, rate, warmups: 1, seed: SEED + 101 + (tag === 'quiet' ? 0 : 50) })
    const js = r.records.map((x) => judge(observation(x), objectives))
    out[id] = {
      meanReward: mean(js.map((j) => j.reward)), missRate: js.filter((j) => !j.met).length / js.length,
      ttftP50: r.metrics.ttftMs.p50, tpotP50: r.metrics.tpotMs.p50, goodputPerS: js.filter((j) => j.met).length / r.metrics.durationS,
      requests: r.records.length, failed: r.metrics.requests.failed,
    }
    log(`oracle ${tag} ${id}: mean reward ${out[id]!.meanReward.toFixed(3)}, miss rate ${(out[id]!.missRate * 100).toFixed(0)}%`)
  }
  const best = Object.entries(out).sort((a, b) => b[1].meanReward - a[1].meanReward)[0]![0]
  return { arms: out, best }
}
const quiet = await oracle('quiet')

// 3. Added latency: direct vs a one-arm gateway, alternating blocks.
const overhead: { direct: LoadResult[]; gateway: LoadResult[] } = { direct: [], gateway: [] }
{
  const g = await gateway(['defaults'], { kind: 'thompson' }, objectives)
  for (let b = 0; b < OVERHEAD_BLOCKS; b++) {
    for (const [k, [kind, url]] of ([['direct', urls.defaults!], ['gateway', g.url]] as const).entries()) {
      overhead[kind].push(await runLoad({ baseUrl: url, workload, requests: OVERHEAD_REQUESTS, concurrency: 1, warmups: 1, seed: SEED + 1000 + 10 * b + k }))
    }
  }
  await g.stop()
}
const pooled = (rs: LoadResult[]) => ({
  ttftMsP50: median(rs.flatMap((r) => r.records.filter((x) => x.ok).map((x) => x.ttftMs!))),
  itlMsP50: median(rs.flatMap((r) => r.records.flatMap((x) => x.itlMs))),
  // Several tokens of the small model often arrive in one read (gaps of ~0 ms), so the median gap
  // can be 0 both ways: the mean and the p90 say more.
  itlMsMean: mean(rs.flatMap((r) => r.records.flatMap((x) => x.itlMs))),
  itlMsP90: (() => {
    const xs = rs.flatMap((r) => r.records.flatMap((x) => x.itlMs)).sort((a, b) => a - b)
    return xs[Math.floor(0.9 * (xs.length - 1))] ?? Number.NaN
  })(),
  ttftMsMean: mean(rs.flatMap((r) => r.records.filter((x) => x.ok).map((x) => x.ttftMs!))),
  e2eMsP50: median(rs.flatMap((r) => r.records.filter((x) => x.ok).map((x) => x.e2eMs))),
  requests: rs.reduce((t, r) => t + r.records.length, 0),
})
const added = { direct: pooled(overhead.direct), gateway: pooled(overhead.gateway), blocks: OVERHEAD_BLOCKS, requestsPerBlock: OVERHEAD_REQUESTS }
log(`added latency: TTFT p50 ${added.direct.ttftMsP50.toFixed(2)} → ${added.gateway.ttftMsP50.toFixed(2)} ms, ITL mean ${added.direct.itlMsMean.toFixed(2)} → ${added.gateway.itlMsMean.toFixed(2)} ms`)

// 4–6. Policy runs on the same seeded arrivals.
interface RunOptions { policy: PolicyInput; seed: number; kill?: boolean; neighbourAt?: number }
let neighbours: ChildProcess[] = []
const startNeighbours = () => {
  neighbours = cpus().map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }))
}
const stopNeighbours = () => {
  for (const n of neighbours) n.kill('SIGKILL')
  neighbours = []
}
async function policyRun(name: string, o: RunOptions, oracleOf: (i: number, total: number) => { arms: Record<string, { meanReward: number }>; best: string }) {
  const decisions: Decision[] = []
  // The kill run launches its own servers, so that the killed one is relaunched by the gateway under test.
  const g = await gateway(Object.keys(ARMS), o.policy, objectives, (d) => decisions.push(d), o.kill === true)
  let kill: { arm: string; atRequest: number; atS: number; upAgainAfterS: number | null; pid: number } | undefined
  const started = performance.now()
  const onRequestDone = (done: number, total: number) => {
    if (o.kill && !kill && done === Math.floor(total / 2)) {
      const arm = oracleOf(done, total).best
      const pid = g.arm(arm).pid!
      kill = { arm, atRequest: done, atS: (performance.now() - started) / 1000, upAgainAfterS: null, pid }
      process.kill(pid, 'SIGKILL')
      log(`${name}: killed ${arm}'s server (pid ${pid}) after ${done} requests`)
      const t = performance.now()
      const poll = setInterval(() => {
        if (g.arm(arm).up && g.arm(arm).pid !== pid) {
          kill!.upAgainAfterS = (performance.now() - t) / 1000
          clearInterval(poll)
        }
      }, 100)
    }
    if (o.neighbourAt !== undefined && neighbours.length === 0 && done === Math.floor(total * o.neighbourAt)) {
      startNeighbours()
      log(`${name}: neighbour load started after ${done} requests`)
    }
  }
  const r = await runLoad({ baseUrl: g.url, workload, requests: RUN_REQUESTS, rate, warmups: 0, seed: o.seed, onRequestDone, timeoutMs: 120_000 })
  stopNeighbours()
  if (kill) for (let i = 0; i < 600 && kill.upAgainAfterS === null; i++) await new Promise((res) => setTimeout(res, 100))
  const status = await g.stop()
  decisions.sort((a, b) => a.requestId - b.requestId)
  let pseudo = 0
  let realised = 0
  const bucket = Math.max(10, Math.round(RUN_REQUESTS / 10))
  const share: { requests: string; bestArmShare: number; best: string }[] = []
  const cumulative: number[] = []
  decisions.forEach((d, i) => {
    const or = oracleOf(i, decisions.length)
    const bestMean = or.arms[or.best]!.meanReward
    pseudo += bestMean - or.arms[d.arm]!.meanReward
    realised += bestMean - d.reward
    cumulative.push(pseudo)
  })
  for (let i = 0; i < decisions.length; i += bucket) {
    const slice = decisions.slice(i, i + bucket)
    const best = oracleOf(i, decisions.length).best
    share.push({ requests: `${i + 1}-${i + slice.length}`, best, bestArmShare: slice.filter((d) => d.arm === best).length / slice.length })
  }
  const result = {
    name, policy: o.policy,
    requests: { sent: r.records.length, completed: r.metrics.requests.completed, failed: r.metrics.requests.failed, errors: r.metrics.errors },
    misses: decisions.filter((d) => !d.met).length + (r.records.length - decisions.length),
    pseudoRegret: pseudo, realisedRegret: realised,
    cumulativePseudoRegret: cumulative.filter((_, i) => (i + 1) % bucket === 0 || i === cumulative.length - 1).map((x) => Math.round(x * 1000) / 1000),
    bestArmShareOverTime: share,
    traffic: Object.fromEntries(status.arms.map((a: GatewayStatus['arms'][number]) => [a.arm, { requests: a.requests, share: a.share, misses: a.misses, suspensions: a.suspensions, retriedAway: a.retriedAway }])),
    retries: status.totals.retries, staleConnections: status.totals.staleConnections,
    ...(kill ? { kill: { ...kill, requestsLost: r.metrics.requests.failed, relaunches: status.totals.relaunches, requestsAfterKillOnThatArm: decisions.filter((d) => d.arm === kill!.arm && d.requestId > kill!.atRequest).length } } : {}),
    measured: { ttftMsP50: r.metrics.ttftMs.p50, tpotMsP50: r.metrics.tpotMs.p50, durationS: r.metrics.durationS },
  }
  log(`${name}: misses ${result.misses}/${r.records.length}, failed ${result.requests.failed}, pseudo-regret ${pseudo.toFixed(2)}, final share ${JSON.stringify(share.at(-1))}`)
  return result
}

const stationary = () => quiet
const thompson = await policyRun('thompson', { policy: { kind: 'thompson' }, seed: SEED + 200 }, stationary)
const even = await policyRun('even split (epsilon-greedy, epsilon 1)', { policy: { kind: 'epsilon-greedy', epsilon: 1 }, seed: SEED + 300 }, stationary)
const killRun = await policyRun('thompson, best arm killed halfway', { policy: { kind: 'thompson' }, kill: true, seed: SEED + 400 }, stationary)

// Drift: the oracle under the neighbour load, then the runs where the neighbour appears halfway.
startNeighbours()
const loaded = await oracle('neighbour')
stopNeighbours()
const piecewise = (i: number, total: number) => (i < Math.floor(total / 2) ? quiet : loaded)
const driftThompson = await policyRun('thompson, neighbour load halfway', { policy: { kind: 'thompson' }, neighbourAt: 0.5, seed: SEED + 500 }, piecewise)
const driftDiscounted = await policyRun('discounted-thompson (gamma 0.95), neighbour load halfway', { policy: { kind: 'discounted-thompson', gamma: 0.95 }, neighbourAt: 0.5, seed: SEED + 600 }, piecewise)

await owner.stop()
rmSync(dir, { recursive: true, force: true })
const after = { uptime: uptime(), loadAverage1m: loadavg()[0]!, at: new Date().toISOString() }
const out = {
  what: 'kerneltune gateway (bandit routing) in front of three real llama-servers; see the header of bench/gateway.bench.ts',
  machine: { cpu: cpus()[0]?.model.trim(), logicalCores: cpus().length, shared: 'yes: other sessions ran on the machine during the run (see the load averages)' },
  llamaServer: found.path, model: 'synthetic llama 15M Q8_0 (@kerneltune/gguf synthLlama seed 1)',
  arms: ARMS, workload, seed: SEED, before, after, seconds: (Date.now() - t0) / 1000, runRequests: RUN_REQUESTS, oracleRequests: ORACLE_REQUESTS,
  calibration: { requestThroughput: cal.metrics.requestThroughput, ttftMsP50: cal.metrics.ttftMs.p50, tpotMsP50: cal.metrics.tpotMs.p50, rate, objectives: formatSlo(objectives) },
  reward: '0.5·met + 0.5·mean over objectives of clamp(1 − observed/bound, 0, 1); 0 for a failed request (packages/gateway/src/reward.ts)',
  oracle: { quiet, neighbour: loaded, note: `each arm alone at ${rate} req/s, ${ORACLE_REQUESTS} requests, straight to its server` },
  addedLatency: added,
  runs: { thompson, evenSplit: even, kill: killRun, driftThompson, driftDiscountedThompson: driftDiscounted },
}
mkdirSync(join(HERE, 'results'), { recursive: true })
writeFileSync(join(HERE, 'results', 'gateway.json'), JSON.stringify(out, null, 2) + '\n')
log(`wrote bench/results/gateway.json; ${after.uptime}`)
process.exit(0)
