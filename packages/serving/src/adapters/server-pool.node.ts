/**
 * Servers kept running between measurements, one per combination. An interleaved sweep visits
 * every combination once per round; launching a server per visit spends most of a time budget on
 * launches (a server loads the model, allocates its KV cache and warms up each time) and adds
 * launch-to-launch variance to every comparison. The pool launches a combination's server on its
 * first visit and reuses it on later ones.
 *
 * - Only the caller's measurement puts load on a server; idle ones wait on their sockets. The pool
 *   runs one session at a time (a second waits), so two servers are never under load together —
 *   a threads=1 arm and a threads=2 arm each have the machine to themselves.
 * - At most `max` servers are up; launching one more stops the least recently used (LRU), whose
 *   next visit launches it again. The default keeps every combination up.
 * - A server found dead (exited, or failing under load) is relaunched once for that combination;
 *   if it fails again the combination fails.
 * - close() stops every server; launched servers also die with us (see launcher.node.ts).
 * - prelaunch() starts the servers of many combinations at once, before any measurement, and
 *   warms them one at a time: launches are what an interleaved sweep's first round pays, and they
 *   overlap well (a launch mostly waits on the disk and on one thread's model load), while
 *   warm-ups compute. A combination whose pre-launch failed is reported to the caller and not
 *   launched again by a session.
 * - Every launch is recorded with its phases (launches()).
 */
import { KerneltuneError, isKerneltuneError, type Combo } from '@kerneltune/core'
import type { LaunchPhases } from './launcher.node.ts'
import { loadServer, machineDevice, openServer, warmServer, type LoadLevel, type LoadServerOptions, type OpenServer, type ServerTarget, type SessionOptions, type SessionResult } from './serving-session.node.ts'

export interface ServerPoolOptions {
  readonly target: ServerTarget
  /** Servers up at most (LRU beyond). Default unbounded. */
  readonly max?: number
  readonly readyTimeoutMs?: number
  readonly device?: string
  /** The key of a combination; default its JSON with sorted keys. Combinations with one key share a server. */
  readonly key?: (combo: Combo) => string
}

export interface PoolStats {
  /** Servers launched, relaunches and LRU re-launches included. */
  readonly launches: number
  readonly relaunches: number
  readonly evictions: number
  /** Servers running now. */
  readonly running: number
  /** Their pids, for orphan checks. */
  readonly pids: readonly number[]
}

/** Why a server was launched. */
export type LaunchReason = 'pre-launch' | 'first visit' | 'relaunch' | 'after eviction'

/** One launch of a combination's server, with its phases (absent when it failed before spawning). */
export interface PoolLaunch {
  readonly key: string
  readonly combo: Combo
  readonly reason: LaunchReason
  readonly ok: boolean
  readonly error?: string
  readonly phases?: LaunchPhases
}

export interface PrelaunchOptions {
  /** Launches in flight at once. Default 1. */
  readonly parallel?: number
  /** Warm each server up after its launch (warmServer): then its first session needs no warm-up. */
  readonly warm?: { readonly load: SessionOptions['load']; readonly level: LoadLevel; readonly requests: number }
  readonly signal?: AbortSignal
}

/** A pre-launch's outcome for one combination, in the order asked. */
export interface Prelaunched {
  readonly ok: boolean
  readonly error?: string
  /** Launched and warmed up: its first session needs no warm-up. */
  readonly warmed: boolean
  readonly phases?: LaunchPhases
}

export interface ServerPool {
  /** A measured session on the combination's server (launched on first use). */
  session(combo: Combo, o: Omit<LoadServerOptions, 'loadsBefore'>): Promise<SessionResult>
  /**
   * Launches the servers of these combinations (the first `max` of them; duplicates once), at most
   * `parallel` at a time, and waits until every one is up (and warm) or failed. Runs between
   * sessions, never beside one. A failure is returned, not thrown; a later session for that
   * combination throws it again instead of launching.
   */
  prelaunch(combos: readonly Combo[], o?: PrelaunchOptions): Promise<readonly Prelaunched[]>
  /** Every launch so far, in launch order. */
  launches(): readonly PoolLaunch[]
  stats(): PoolStats
  close(): Promise<void>
}

interface Entry { server: OpenServer; loads: number; lastUsed: number }

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e))

const sortedKey = (c: Combo) => JSON.stringify(Object.keys(c).sort().map((k) => [k, c[k]]))

export function createServerPool(o: ServerPoolOptions): ServerPool {
  if (o.max !== undefined && !(Number.isInteger(o.max) && o.max >= 1)) throw new KerneltuneError('INVALID_INPUT', `the server pool size must be a whole number of at least 1, got ${o.max}`)
  const key = o.key ?? sortedKey
  const entries = new Map<string, Entry>()
  /** Combinations already relaunched once after their server died. */
  const relaunched = new Set<string>()
  let launches = 0
  let relaunches = 0
  let evictions = 0
  let tick = 0
  let closed = false
  let queue: Promise<unknown> = Promise.resolve()
  /** Launch records; a successful one reads its server's phases when asked (the warm-up comes after the launch). */
  const log: { key: string; combo: Combo; reason: LaunchReason; error?: string; phases?: LaunchPhases; server?: OpenServer }[] = []
  const evicted = new Set<string>()
  /** Combinations whose pre-launch failed: their error, thrown by a session instead of launching again. */
  const failedPrelaunch = new Map<string, string>()

  const evictFor = async (room: number) => {
    while (entries.size + room > (o.max ?? Infinity) && entries.size > 0) {
      const [k, lru] = [...entries].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0]!
      entries.delete(k)
      evicted.add(k)
      evictions++
      await lru.server.stop()
    }
  }

  /** Launches a combination's server (no eviction here) and records the launch, failed or not. */
  const launch = async (combo: Combo, reason: LaunchReason, onProgress?: (m: string) => void): Promise<Entry> => {
    const k = key(combo)
    launches++
    try {
      const server = await openServer({ target: o.target, combo, ...(o.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: o.readyTimeoutMs }), ...(onProgress ? { onProgress } : {}) })
      log.push({ key: k, combo, reason, server })
      const entry = { server, loads: 0, lastUsed: tick }
      entries.set(k, entry)
      return entry
    } catch (e) {
      const phases = (isKerneltuneError(e) ? (e.details as { phases?: LaunchPhases } | undefined)?.phases : undefined)
      log.push({ key: k, combo, reason, error: messageOf(e), ...(phases ? { phases } : {}) })
      throw e
    }
  }

  const open = async (combo: Combo, reason: LaunchReason, onProgress?: (m: string) => void): Promise<Entry> => {
    await evictFor(1)
    return launch(combo, evicted.has(key(combo)) ? 'after eviction' : reason, onProgress)
  }

  const prelaunch = async (combos: readonly Combo[], po: PrelaunchOptions = {}): Promise<Prelaunched[]> => {
    if (closed) throw new KerneltuneError('INVALID_INPUT', 'the server pool is closed')
    const parallel = po.parallel ?? 1
    if (!(Number.isInteger(parallel) && parallel >= 1)) throw new KerneltuneError('INVALID_INPUT', `pre-launch parallelism must be a whole number of at least 1, got ${parallel}`)
    // Each distinct combination once, up to what the pool may keep: the rest launch on their visit.
    const wanted = [...new Map(combos.map((c) => [key(c), c])).entries()].filter(([k]) => !entries.has(k) && !failedPrelaunch.has(k)).slice(0, Math.max(0, (o.max ?? Infinity) - entries.size))
    const outcome = new Map<string, Prelaunched>()
    // Launches overlap; warm-ups go one at a time: they compute, and two servers computing at once
    // on a CPU whose cores each already fills spin on each other's barriers (two 2-thread
    // CPU servers warming together on 2 cores took 6.5 and 8.8 s where one alone takes 0.5 s).
    let warming: Promise<unknown> = Promise.resolve()
    const warmAlone = (run: () => Promise<void>) => {
      const turn = warming.then(run)
      warming = turn.catch(() => {})
      return turn
    }
    let next = 0
    const failed = async (k: string, e: unknown, entry?: Entry) => {
      // A server that came up but failed its warm-up is stopped: its combination failed.
      if (entry) {
        entries.delete(k)
        await entry.server.stop()
      }
      failedPrelaunch.set(k, messageOf(e))
      const phases = entry?.server.launched?.phases() ?? (isKerneltuneError(e) ? (e.details as { phases?: LaunchPhases } | undefined)?.phases : undefined)
      outcome.set(k, { ok: false, error: messageOf(e), warmed: false, ...(phases ? { phases } : {}) })
    }
    const up = (k: string, entry: Entry, warmed: boolean) => outcome.set(k, { ok: true, warmed, ...(entry.server.launched ? { phases: entry.server.launched.phases() } : {}) })
    const warmups: Promise<unknown>[] = []
    // With launches in parallel a slot is free again as soon as its server is up: its warm-up
    // waits for its turn apart, so the launches are never held back behind a slow warm-up.
    const worker = async () => {
      while (next < wanted.length) {
        const [k, combo] = wanted[next++]!
        if (po.signal?.aborted) return
        let entry: Entry
        try {
          entry = await launch(combo, 'pre-launch')
        } catch (e) {
          if (!po.signal?.aborted) await failed(k, e)
          continue
        }
        const warm = po.warm
        if (!warm || warm.requests < 1) {
          up(k, entry, false)
          continue
        }
        const turn = warmAlone(async () => {
          try {
            await warmServer(entry.server, { ...warm, loadsBefore: entry.loads, ...(po.signal ? { signal: po.signal } : {}) })
            entry.loads++
            up(k, entry, true)
          } catch (e) {
            if (!po.signal?.aborted) await failed(k, e, entry)
          }
        })
        // One launch at a time: nothing overlaps, the warm-up comes before the next launch.
        if (parallel === 1) await turn
        else warmups.push(turn)
      }
    }
    await Promise.all(Array.from({ length: Math.min(parallel, wanted.length) }, worker))
    await Promise.all(warmups)
    if (po.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the pre-launch was cancelled')
    return combos.map((c) => outcome.get(key(c)) ?? (failedPrelaunch.has(key(c)) ? { ok: false, error: failedPrelaunch.get(key(c))!, warmed: false } : { ok: entries.has(key(c)), warmed: false }))
  }

  const measure = async (combo: Combo, lo: Omit<LoadServerOptions, 'loadsBefore'>): Promise<SessionResult> => {
    if (closed) throw new KerneltuneError('INVALID_INPUT', 'the server pool is closed')
    const k = key(combo)
    const notes: string[] = []
    const failed = failedPrelaunch.get(k)
    if (failed !== undefined) throw new KerneltuneError('MEASUREMENT_FAILED', `its server failed to start before the first round: ${failed}`)
    let launchedHere: OpenServer | undefined
    let reason: LaunchReason | undefined
    for (;;) {
      let entry = entries.get(k)
      if (entry && !entry.server.alive()) {
        entries.delete(k)
        await entry.server.stop()
        entry = undefined
        if (relaunched.has(k)) throw new KerneltuneError('MEASUREMENT_FAILED', `the server for ${JSON.stringify(combo)} exited between measurements again after a relaunch`)
        relaunched.add(k)
        relaunches++
        notes.push('the server had exited since its last measurement and was relaunched')
      }
      if (!entry) {
        entry = await open(combo, relaunched.has(k) ? 'relaunch' : 'first visit', lo.onProgress)
        launchedHere = entry.server
        reason = log[log.length - 1]!.reason
      }
      entry.lastUsed = ++tick
      try {
        const levels = await loadServer(entry.server, { ...lo, loadsBefore: entry.loads })
        entry.loads += levels.length
        const launch = launchedHere?.launched?.phases()
        return { server: entry.server.server, device: o.device ?? machineDevice(), levels, notes: [...entry.server.notes, ...notes], ...(launch ? { launch, ...(reason ? { launchReason: reason } : {}) } : {}) }
      } catch (e) {
        if (isKerneltuneError(e) && e.code === 'CANCELLED') throw e
        // Failing under load with the server gone: relaunch once; failing with it up is the combination's result.
        await new Promise((r) => setTimeout(r, 50))
        if (entry.server.alive() || relaunched.has(k)) {
          if (!entry.server.alive()) {
            entries.delete(k)
            await entry.server.stop()
          }
          throw e
        }
        entries.delete(k)
        await entry.server.stop()
        relaunched.add(k)
        relaunches++
        notes.push(`the server exited under load and was relaunched: ${e instanceof Error ? e.message.slice(0, 200) : String(e)}`)
      }
    }
  }

  return {
    session(combo, lo) {
      // One session at a time, in call order: never two servers under load together.
      const run = queue.then(() => measure(combo, lo))
      queue = run.catch(() => {})
      return run
    },
    prelaunch(combos, po) {
      // In the session queue: launches never overlap a measurement.
      const run = queue.then(() => prelaunch(combos, po))
      queue = run.catch(() => {})
      return run
    },
    launches: () => log.map(({ server, ...l }) => {
      const phases = server?.launched?.phases() ?? l.phases
      return { key: l.key, combo: l.combo, reason: l.reason, ok: l.error === undefined, ...(l.error === undefined ? {} : { error: l.error }), ...(phases ? { phases } : {}) }
    }),
    stats: () => ({ launches, relaunches, evictions, running: [...entries.values()].filter((e) => e.server.alive()).length, pids: [...entries.values()].flatMap((e) => (e.server.server.pid === undefined ? [] : [e.server.server.pid])) }),
    async close() {
      closed = true
      await queue
      const all = [...entries.values()]
      entries.clear()
      await Promise.all(all.map((e) => e.server.stop()))
    },
  }
}
