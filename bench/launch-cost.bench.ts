/**
 * What an interleaved server sweep's first round costs against its later rounds (issue 35 item 1).
 * Runs `kerneltune sweep --backend server --design interleaved` as a user would, on a synthetic
 * GGUF big enough that a llama-server launch costs about a second, over a space whose launches
 * dominate (short measurements, six arms), alternately with the pre-launch on (every arm's server
 * started before round 1 and warmed by one wave of the measured load; on a CPU one at a time) and off (main's behaviour before it: each arm launched on its first visit of round 1,
 * warm-up requests one at a time), in ABBA order so drift hits both alike. Reports per sweep each
 * round's duration, round 1 / median(later rounds), (pre-launch + round 1) / median(later rounds),
 * and the launch phases (ms since spawn), and the ratios' medians per mode: the target is a first
 * round at most twice a later one. Writes bench/results/launch-cost.json.
 *
 *   pnpm bench launch-cost     (PAIRS=2 ABBA pairs, PARAMS=300M, ROUNDS=5; NOTE='...' goes into the file)
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LLAMACPP_VERSION } from '@kerneltune/engines-llamacpp'
import { findLlamaServer } from '@kerneltune/engines-llamacpp/node'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const CLI = [TSX, '--conditions=@kerneltune/source', join(ROOT, 'apps/cli/src/main.ts')]
const PAIRS = Number(process.env.PAIRS ?? 2)
const PARAMS = process.env.PARAMS ?? '300M'
const ROUNDS = Number(process.env.ROUNDS ?? 5)
// threads=1 on every candidate: on a 2-core machine shared with other work, two llama.cpp threads
// spin on each other's barriers and a visit's time then says more about the neighbours than the arm.
const SPACE = { threads: ['1'], parallel: ['auto', '1'], flash_attn: ['auto', 'off'] }
const LOAD = ['--concurrency', '2', '--requests', '2', '--prompt-tokens', '8', '--gen-tokens', '4']

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const round3 = (x: number) => Math.round(x * 1000) / 1000
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()

const server = findLlamaServer(LLAMACPP_VERSION)
if (!server) {
  console.error('no llama-server binary: tooling/scripts/build-llama-server.sh builds one (or set KERNELTUNE_LLAMA_SERVER)')
  process.exit(1)
}
const dir = mkdtempSync(join(tmpdir(), 'launch-cost-'))
const model = join(dir, `llama-${PARAMS}-q4_0.gguf`)
const synth = spawnSync(CLI[0]!, [...CLI.slice(1), 'model', 'synth', '--params', PARAMS, '--quant', 'Q4_0', '--fill', 'tiled', '--out', model, '--json'], { cwd: ROOT, encoding: 'utf8' })
if (synth.status !== 0) throw new Error(`model synth failed: ${synth.stderr}`)
const modelInfo = JSON.parse(synth.stdout) as { params: number; bytes: number; shape: unknown }

interface Launch { reason: string; ok: boolean; phases?: Record<string, number | string> }
interface SweepJson { roundSeconds?: number[]; prepareSeconds?: number; launches?: Record<string, Launch[]>; rounds: number; seconds: number; device: string; notes: string[] }

function sweep(mode: 'on' | 'off', i: number) {
  const argv = ['sweep', '--gguf', model, '--backend', 'server', '--design', 'interleaved', '--quick', '--space', JSON.stringify(SPACE), ...LOAD,
    '--rounds', String(ROUNDS), '--seed', String(i + 1), '--prelaunch', mode, '--db', join(dir, 'runs.db'), '--json']
  const started = performance.now()
  const r = spawnSync(CLI[0]!, [...CLI.slice(1), ...argv], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, KERNELTUNE_LLAMA_SERVER: server!.path }, maxBuffer: 64 * 2 ** 20 })
  const wallS = (performance.now() - started) / 1000
  if (r.status !== 0 && r.status !== 3) throw new Error(`sweep (${mode}) exited ${r.status}: ${r.stderr.slice(-2000)}`)
  const j = JSON.parse(r.stdout) as SweepJson
  const [first, ...later] = j.roundSeconds ?? []
  const laterMedian = median(later)
  const launches = Object.entries(j.launches ?? {}).flatMap(([arm, ls]) => ls.map((l) => ({ arm, reason: l.reason, ok: l.ok, phases: l.phases ?? {} })))
  const phase = (k: string) => round3(median(launches.map((l) => l.phases[k]).filter((x): x is number => typeof x === 'number')))
  const warmup = launches.map((l) => (typeof l.phases.warmupEndMs === 'number' && typeof l.phases.warmupStartMs === 'number' ? l.phases.warmupEndMs - l.phases.warmupStartMs : NaN)).filter(Number.isFinite)
  const out = {
    mode,
    argv: ['kerneltune', ...argv],
    wallSeconds: round3(wallS),
    sweepSeconds: round3(j.seconds),
    rounds: j.rounds,
    roundSeconds: (j.roundSeconds ?? []).map(round3),
    prepareSeconds: j.prepareSeconds === undefined ? null : round3(j.prepareSeconds),
    round1OverLaterMedian: round3(first! / laterMedian),
    round1WithPrelaunchOverLaterMedian: round3((first! + (j.prepareSeconds ?? 0)) / laterMedian),
    launchPhasesMedianMs: { listeningMs: phase('listeningMs'), modelLoadedMs: phase('modelLoadedMs'), readyMs: phase('readyMs'), warmupMs: round3(median(warmup)) },
    launches,
    timingNote: j.notes.find((n) => n.startsWith('time:')) ?? null,
  }
  console.log(`${mode}: rounds ${out.roundSeconds.join(' / ')} s, pre-launch ${out.prepareSeconds ?? '-'} s; round 1 / later ${out.round1OverLaterMedian}, with the pre-launch ${out.round1WithPrelaunchOverLaterMedian}; ready ${out.launchPhasesMedianMs.readyMs} ms, warm-up ${out.launchPhasesMedianMs.warmupMs} ms (medians)`)
  return { out, device: j.device }
}

// The code measured is HEAD at the start; only this bench's own output may differ from it.
const commit = git('rev-parse', 'HEAD')
const dirty = git('status', '--porcelain', '--', '.', ':(exclude)bench/results').length > 0
const before = { loadAverage: loadavg().map(round3), at: new Date().toISOString() }
const runs: ReturnType<typeof sweep>['out'][] = []
let device = ''
// ABBA: off, on, on, off, ... so a slow drift of the machine's load weighs on both modes alike.
const order = Array.from({ length: PAIRS }, (_, p): ('on' | 'off')[] => (p % 2 === 0 ? ['off', 'on'] : ['on', 'off'])).flat()
for (const [i, mode] of order.entries()) {
  const r = sweep(mode, i)
  runs.push(r.out)
  device = r.device
}
const after = { loadAverage: loadavg().map(round3), at: new Date().toISOString() }
const summary = (mode: 'on' | 'off') => {
  const rs = runs.filter((r) => r.mode === mode)
  return {
    sweeps: rs.length,
    round1OverLaterMedian: round3(median(rs.map((r) => r.round1OverLaterMedian))),
    round1WithPrelaunchOverLaterMedian: round3(median(rs.map((r) => r.round1WithPrelaunchOverLaterMedian))),
    // The absolute cost beside the ratios: what the first round took with its launches (pre-launch
    // included), and a later round, in seconds.
    firstRoundWithLaunchesSecondsMedian: round3(median(rs.map((r) => r.roundSeconds[0]! + (r.prepareSeconds ?? 0)))),
    laterRoundSecondsMedian: round3(median(rs.map((r) => median(r.roundSeconds.slice(1))))),
    sweepSecondsMedian: round3(median(rs.map((r) => r.sweepSeconds))),
    targetMet: median(rs.map((r) => r.round1WithPrelaunchOverLaterMedian)) <= 2,
  }
}
const version = spawnSync(server.path, ['--version'], { encoding: 'utf8' })
const result = {
  bench: 'launch-cost',
  what: 'kerneltune sweep --backend server --design interleaved on the CPU, the pre-launch on (every arm\'s llama-server started before round 1, on a CPU one at a time, each warmed by one wave of the measured load, llama-server\'s own warm-up off) against off (each arm launched on its first visit of round 1, warm-up requests one at a time: the behaviour before issue 35), alternated ABBA in one run; the target is round 1 at most twice the median later round, counting the pre-launch as part of round 1 (targetMet)',
  device: { description: device, cpu: cpus()[0]?.model.trim() ?? 'unknown', logicalCores: cpus().length },
  llamaCpp: { nodeLlamaCppRelease: LLAMACPP_VERSION, serverVersion: `${version.stdout}${version.stderr}`.split('\n').filter((l) => /version|built with/.test(l)).join('; '), binary: server.path },
  kerneltune: { commit, dirty },
  model: { params: modelInfo.params, bytes: modelInfo.bytes, quant: 'Q4_0', fill: 'tiled', shape: modelInfo.shape },
  space: SPACE,
  load: LOAD.join(' '),
  rounds: ROUNDS,
  summary: { on: summary('on'), off: summary('off') },
  runs,
  machine: { before, after },
  note: process.env.NOTE ?? null,
}
writeFileSync(join(ROOT, 'bench/results/launch-cost.json'), `${JSON.stringify(result, null, 2)}\n`)
rmSync(dir, { recursive: true, force: true })
console.log(`on: ${JSON.stringify(result.summary.on)}\noff: ${JSON.stringify(result.summary.off)}\nwrote bench/results/launch-cost.json`)
