/**
 * The processes behind bench/distributed-queue.bench.ts: a throwaway redis-server
 * (tooling/scripts/start-test-redis.sh) and worker processes (apps/server/src/distributed/
 * worker.fixture.ts, one OS process each), all stopped when the bench ends, fails, is interrupted
 * or runs past its deadline. A worker also stops when its stdin closes, so even a bench killed
 * with SIGKILL leaves none behind (the redis-server, a daemon, then needs its redis.stop script,
 * whose path the bench prints).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, hostname, loadavg, release, totalmem, tmpdir, type as osType } from 'node:os'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const WORKER = join(ROOT, 'apps', 'server', 'src', 'distributed', 'worker.fixture.ts')
const cleanups: (() => void)[] = []
const live = new Set<ChildProcess>()

/** Runs every cleanup once (synchronously: it also runs from process 'exit'). */
export function cleanUp() {
  for (const c of live) c.kill('SIGKILL')
  live.clear()
  while (cleanups.length) {
    try {
      cleanups.pop()!()
    } catch { /* best effort: the others still run */ }
  }
}
process.once('exit', cleanUp)
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(sig, () => {
    console.error(`distributed-queue bench: ${sig}, stopping the workers and redis-server`)
    cleanUp()
    process.exit(130)
  })
}

/** Ends the bench (exit 124) once `seconds` have passed, whatever it is doing. */
export function deadline(seconds: number) {
  setTimeout(() => {
    console.error(`distributed-queue bench: past --max-seconds ${seconds}; stopping everything`)
    cleanUp()
    process.exit(124)
  }, seconds * 1000).unref()
}

/** KERNELTUNE_TEST_REDIS_URL if set (left running), else a redis-server this bench starts and stops. */
export function startRedis(): { url: string; started: boolean } {
  const given = process.env.KERNELTUNE_TEST_REDIS_URL
  if (given) return { url: given, started: false }
  const state = mkdtempSync(join(tmpdir(), 'kt-bench-redis-'))
  const url = execFileSync('bash', [join(ROOT, 'tooling', 'scripts', 'start-test-redis.sh')], { env: { ...process.env, KERNELTUNE_TEST_STATE_DIR: state }, encoding: 'utf8' }).trim()
  const stop = join(state, 'redis.stop')
  console.error(`distributed-queue bench: started redis-server at ${url} (if this bench is killed outright: bash ${stop})`)
  cleanups.push(() => {
    execFileSync('bash', [stop], { stdio: 'ignore' })
    rmSync(state, { recursive: true, force: true })
  })
  return { url, started: true }
}

export interface WorkerProcess {
  readonly pid: number
  /** Seconds from spawn to the worker taking jobs (Node + tsx start, store and Redis connections). */
  readonly startSeconds: number
  stop(): Promise<void>
}

export interface WorkerEnv {
  readonly redisUrl: string
  readonly db: string
  readonly prefix: string
  readonly delayMs: number
  readonly device: string
}

/** Spawns one worker process and resolves once it prints its ready line (or fails after 180 s). */
export function spawnWorker(o: WorkerEnv): Promise<WorkerProcess> {
  const t0 = performance.now()
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kerneltune/source', WORKER], {
    cwd: ROOT,
    // BullMQ's own lock and stalled-check periods (30 s), as `kerneltune worker` runs: the fixture's
    // test defaults (1.5 s) are for tests that kill workers.
    env: { ...process.env, KT_REDIS: o.redisUrl, KT_DB: o.db, KT_PREFIX: o.prefix, KT_DELAY_MS: String(o.delayMs), KT_DEVICE: o.device, KT_LOCK_MS: '30000', KT_STALLED_MS: '30000', KT_EXIT_WITH_STDIN: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  live.add(child)
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  child.once('exit', () => live.delete(child))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    // SIGTERM finishes the jobs in hand; a worker that hangs past 15 s is killed.
    child.kill('SIGTERM')
    const late = setTimeout(() => child.kill('SIGKILL'), 15_000)
    await exited
    clearTimeout(late)
  }
  return new Promise((resolve, reject) => {
    const late = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error('a worker process did not start within 180 s'))
    }, 180_000)
    createInterface({ input: child.stdout! }).once('line', () => {
      clearTimeout(late)
      resolve({ pid: child.pid!, startSeconds: (performance.now() - t0) / 1000, stop })
    })
    child.once('exit', (code) => {
      clearTimeout(late)
      reject(new Error(`a worker process exited before it was ready (${code})`))
    })
  })
}

const shell = (cmd: string, args: string[]) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

/** What the machine was and how busy it was at this moment (`uptime` as printed, and loadavg). */
export function machine() {
  return {
    host: hostname(),
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${osType()} ${release()}`,
    node: process.version,
    redisServer: shell('redis-server', ['--version']),
  }
}
export const load = () => ({ at: new Date().toISOString(), uptime: shell('uptime', []), loadAverage: loadavg().map((x) => Math.round(x * 100) / 100) })

/** Reads a JSON file, or undefined when it is missing or not JSON. */
export function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return undefined
  }
}
