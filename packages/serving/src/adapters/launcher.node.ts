/**
 * Starts an inference server as a child process and stops it without leaving anything behind.
 *
 * - Argv, environment and config files come from an engine translation; files go to a private
 *   temporary folder (`{dir}` in argv is replaced by its path) that is removed on stop.
 * - `{port}` (and `{host}`) in argv are replaced by a free loopback port picked here.
 * - Ready means the health endpoint answered 200 within the timeout; a server that exits or never
 *   gets ready is reported with its own error lines.
 * - The server runs in its own process group (setsid), stopped with SIGTERM to the group, then
 *   SIGKILL after a grace period. A process group alone does not die with kerneltune when
 *   kerneltune is SIGKILLed, so a tiny shell watchdog holds a pipe from us and kills the group
 *   when that pipe closes (which the kernel does for any death of ours), and where util-linux's
 *   setpriv exists the server also gets PR_SET_PDEATHSIG=SIGKILL.
 * - Every launch records its phases (LaunchPhases): what a launch costs, and where, is what an
 *   interleaved sweep's first round pays (issue 35).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { KerneltuneError } from '@kerneltune/core'

export interface LaunchSpec {
  /** argv[0] is the program; `{port}`, `{host}` and `{dir}` are replaced. */
  readonly argv: readonly string[]
  readonly env?: Readonly<Record<string, string>>
  /** File name (relative) → content, written to the private folder before start. */
  readonly files?: Readonly<Record<string, string>>
  /** Run argv[0] through `/bin/sh -c` (a command template); argv must then have one element. */
  readonly shell?: boolean
  /** Default 127.0.0.1. */
  readonly host?: string
  /** Default: a free port picked here. */
  readonly port?: number
  /** Default /health. */
  readonly healthPath?: string
  /** Default 60 s. */
  readonly readyTimeoutMs?: number
  /** SIGTERM → SIGKILL delay on stop. Default 5 s. */
  readonly graceMs?: number
  /** Lines of output kept. Default 400. */
  readonly keepLines?: number
  readonly onLine?: (line: string) => void
  /** Also ask the kernel to SIGKILL the server when we die (setpriv --pdeathsig), where setpriv exists. Default true; the watchdog works either way. */
  readonly pdeathsig?: boolean
  /** The server's own output line that says its model is loaded (the modelLoadedMs phase; the engine's ServingReadiness). Default: none. */
  readonly modelLoadedLine?: RegExp
  /** Rewrites an output line before it goes into an error (the engine's ServingLogPatterns.redact). */
  readonly redactLine?: (line: string) => string
  /** The status the health endpoint answers once ready. Default 200. */
  readonly readyStatus?: number
  /**
   * What the output says happened (the engine's log classes: classifyServerLog); a server that
   * exits before it is ready is reported with it (details.logClass) and it leads the message.
   */
  readonly classify?: (lines: readonly string[]) => { readonly class: string; readonly line: string } | undefined
}

/** How long a launch that answered ready waits for its model-loaded line before it is returned. */
const LOADED_LINE_GRACE_MS = 500

/**
 * Where a launch's time went, in ms since the process was spawned (setupMs: before it). A phase
 * the server never reached is absent. Warm-up is the requests sent before its first measurement
 * (recorded by whoever sends them, markWarmup).
 */
export interface LaunchPhases {
  /** Wall clock when the process was spawned (ISO). */
  readonly spawnedAt: string
  /** Before the spawn: the private folder, config files and the free port. */
  readonly setupMs: number
  /**
   * The health endpoint first answered, whatever its status (503 while loading, for some). It
   * is polled every 100 ms, so a server that loads within one poll is seen listening and ready at
   * once: listeningMs ≤ readyMs always, but it may come after modelLoadedMs.
   */
  readonly listeningMs?: number
  /** The server's own line said the model is loaded (modelLoadedLine); at most readyMs. */
  readonly modelLoadedMs?: number
  /** The health endpoint answered 200. */
  readonly readyMs?: number
  /** The warm-up requests began and ended. */
  readonly warmupStartMs?: number
  readonly warmupEndMs?: number
  readonly warmupRequests?: number
}

export interface LaunchedServer {
  readonly pid: number
  readonly port: number
  readonly baseUrl: string
  /** The argv as started (placeholders replaced). */
  readonly argv: readonly string[]
  readonly dir: string
  /** The last output lines (stdout and stderr, in arrival order). */
  output(): readonly string[]
  /** Resolves when the process has exited (normally or not). */
  readonly exited: Promise<{ code: number | null; signal: string | null }>
  stop(): Promise<{ code: number | null; signal: string | null }>
  /** The phases so far. */
  phases(): LaunchPhases
  /** Records the warm-up (performance.now() at its start and end); only the first is kept: it is the one the launch paid. */
  markWarmup(startedAt: number, endedAt: number, requests: number): void
}

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p))

const LOG_CLASS_WORDS: Readonly<Record<string, string>> = { 'out-of-memory': 'out of memory', refused: 'it refused its settings', crashed: 'it crashed' }

/** A free TCP port on the loopback interface (the OS picks; a race with another process is retried by launchServer). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.unref()
    s.once('error', reject)
    s.listen(0, host, () => {
      const a = s.address()
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))))
    })
  })
}

/**
 * The lines of a failed server's output that say why: errors first, else the last lines, each
 * through the engine's `redact` (which drops what must not end up in stored errors).
 */
export function errorLines(lines: readonly string[], max = 12, redact: (line: string) => string = (l) => l): string[] {
  const hits = lines.filter((l) => /error|unknown|invalid|failed|cannot|unable|not supported|usage:|abort|what\(\)/i.test(l))
  return (hits.length ? hits : lines).slice(-max).map(redact)
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // Already gone.
  }
}

async function startOnce(spec: LaunchSpec, port: number, dir: string, requestedAt: number): Promise<LaunchedServer> {
  const host = spec.host ?? '127.0.0.1'
  const fill = (s: string) => s.replaceAll('{port}', String(port)).replaceAll('{host}', host).replaceAll('{dir}', dir)
  const argv = spec.argv.map(fill)
  if (argv.length === 0 || argv[0] === '') throw new KerneltuneError('INVALID_INPUT', 'the server command is empty; give the program and its arguments')
  const command = spec.shell ? ['/bin/sh', '-c', `exec ${argv.join(' ')}`] : argv
  const full = SETPRIV && spec.pdeathsig !== false ? [SETPRIV, '--pdeathsig', 'SIGKILL', '--', ...command] : command
  const lines: string[] = []
  const keep = spec.keepLines ?? 400
  const loadedLine = spec.modelLoadedLine
  let spawnAt = performance.now()
  const since = (t = performance.now()) => Math.round((t - spawnAt) * 10) / 10
  const phases: { -readonly [K in keyof LaunchPhases]: LaunchPhases[K] } = { spawnedAt: new Date().toISOString(), setupMs: 0 }
  // The model-loaded line wakes the health poll: a server that prints it right after it turns
  // ready is seen ready at once instead of up to one poll interval (100 ms) later.
  let wake: (() => void) | undefined
  const push = (line: string) => {
    lines.push(line)
    if (lines.length > keep) lines.shift()
    if (phases.modelLoadedMs === undefined && loadedLine?.test(line)) {
      // A server may turn ready just before it prints the line (and print through a log
      // thread): a line seen after the 200 says the model was loaded by the ready time.
      phases.modelLoadedMs = phases.readyMs === undefined ? since() : Math.min(since(), phases.readyMs)
      wake?.()
    }
    spec.onLine?.(line)
  }
  let child: ChildProcess
  try {
    spawnAt = performance.now()
    phases.spawnedAt = new Date().toISOString()
    phases.setupMs = Math.round((spawnAt - requestedAt) * 10) / 10
    child = spawn(full[0]!, full.slice(1), { cwd: dir, env: { ...process.env, ...spec.env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (e) {
    throw new KerneltuneError('MEASUREMENT_FAILED', `could not start ${argv[0]}: ${e instanceof Error ? e.message : String(e)}`, { details: { argv } })
  }
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
    child.once('error', (e) => {
      push(`spawn error: ${e.message}`)
      resolve({ code: null, signal: null })
    })
  })
  for (const stream of [child.stdout, child.stderr]) {
    let rest = ''
    stream?.setEncoding('utf8')
    stream?.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n')
      rest = parts.pop() ?? ''
      for (const p of parts) push(p)
    })
    stream?.on('end', () => rest && push(rest))
  }
  const pid = child.pid
  if (pid === undefined) {
    await exited
    throw new KerneltuneError('MEASUREMENT_FAILED', `could not start ${argv[0]}: ${lines.join(' ') || 'no process'}; check the path and that it is executable`, { details: { argv, lines } })
  }
  // The watchdog: blocks on a read from our pipe, which ends only when we close it or die.
  const watchdog = spawn('/bin/sh', ['-c', `trap '' INT TERM HUP; read _ignored; kill -s KILL -- -${pid} 2>/dev/null`], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] })
  watchdog.unref()
  let exitedAlready = false
  void exited.then(() => (exitedAlready = true))

  let stopping: Promise<{ code: number | null; signal: string | null }> | undefined
  const halt = () =>
    (stopping ??= (async () => {
      if (!exitedAlready) {
        killGroup(pid, 'SIGTERM')
        const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), spec.graceMs ?? 5000).unref())
        if ((await Promise.race([exited, timer])) === 'timeout') killGroup(pid, 'SIGKILL')
      }
      const result = await exited
      // Children the server left in its group (a shell template's) go too.
      killGroup(pid, 'SIGKILL')
      watchdog.kill('SIGKILL')
      return result
    })())
  const stop = async () => {
    const result = await halt()
    await rm(dir, { recursive: true, force: true }).catch(() => {})
    return result
  }

  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  const markWarmup = (startedAt: number, endedAt: number, requests: number) => {
    if (phases.warmupStartMs !== undefined) return
    phases.warmupStartMs = since(startedAt)
    phases.warmupEndMs = since(endedAt)
    phases.warmupRequests = requests
  }
  const server: LaunchedServer = { pid, port, baseUrl, argv, dir, output: () => [...lines], exited, stop, phases: () => ({ ...phases }), markWarmup }
  const deadline = Date.now() + (spec.readyTimeoutMs ?? 60_000)
  const health = `${baseUrl}${spec.healthPath ?? '/health'}`
  for (;;) {
    if (exitedAlready) {
      const r = await exited
      await halt()
      const why = errorLines(lines, 12, spec.redactLine)
      const cls = spec.classify?.(lines)
      const said = cls ? ` (${LOG_CLASS_WORDS[cls.class] ?? cls.class}: ${spec.redactLine ? spec.redactLine(cls.line) : cls.line})` : ''
      throw new KerneltuneError('MEASUREMENT_FAILED', `${argv[0]} exited (${r.code === null ? `signal ${r.signal}` : `code ${r.code}`}) before it was ready${said}: ${why.join(' | ') || 'no output'}`, {
        details: { argv, pid, exit: r, errorLines: why, output: lines.slice(-40), phases: { ...phases }, ...(cls ? { logClass: cls.class } : {}) },
      })
    }
    if (Date.now() > deadline) {
      await halt()
      throw new KerneltuneError('MEASUREMENT_FAILED', `${argv[0]} was not ready within ${spec.readyTimeoutMs ?? 60_000} ms (${health} never answered 200); last output: ${lines.slice(-5).join(' | ')}`, {
        details: { argv, pid, output: lines.slice(-40), phases: { ...phases } },
      })
    }
    try {
      const res = await fetch(health, { signal: AbortSignal.timeout(2000) })
      await res.arrayBuffer().catch(() => {})
      phases.listeningMs ??= since()
      if (res.status === (spec.readyStatus ?? 200)) {
        phases.readyMs = since()
        // The model-loaded line may come through the server's log thread just after it turns
        // ready, so a poll can see the 200 first; the launch's record is taken when this returns,
        // so wait a moment for the line (only a server whose engine names such a line waits).
        if (phases.modelLoadedMs === undefined && loadedLine) await new Promise<void>((r) => {
          const t = setTimeout(r, LOADED_LINE_GRACE_MS)
          wake = () => {
            clearTimeout(t)
            r()
          }
        })
        return server
      }
    } catch {
      // Not listening yet.
    }
    await new Promise<void>((r) => {
      const t = setTimeout(r, 100)
      wake = () => {
        clearTimeout(t)
        r()
      }
    })
    wake = undefined
  }
}

/** Launches and waits until ready; retries with a new port when the picked one was taken meanwhile. */
export async function launchServer(spec: LaunchSpec): Promise<LaunchedServer> {
  const requestedAt = performance.now()
  const dir = await mkdtemp(join(tmpdir(), 'kerneltune-server-'))
  for (const [name, content] of Object.entries(spec.files ?? {})) {
    if (name.startsWith('/') || name.split('/').includes('..')) throw new KerneltuneError('INVALID_INPUT', `config file name ${name} must be relative and stay inside the server's folder`)
    const path = join(dir, name)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, content)
  }
  for (let attempt = 0; ; attempt++) {
    const port = spec.port ?? (await freePort(spec.host))
    try {
      return await startOnce(spec, port, dir, requestedAt)
    } catch (e) {
      const lines = ((e as KerneltuneError).details as { errorLines?: string[] } | undefined)?.errorLines ?? []
      const taken = lines.some((l) => /address already in use|couldn't bind|failed to bind/i.test(l))
      if (!taken || spec.port !== undefined || attempt >= 2) {
        await rm(dir, { recursive: true, force: true }).catch(() => {})
        throw e
      }
    }
  }
}

/** True while a process with this pid exists (for tests and orphan checks). */
export const processAlive = alive
