/**
 * Servers kept running between measurements, one per combination. An interleaved sweep visits
 * every combination once per round; launching a server per visit spends most of a time budget on
 * launches (llama-server loads the model, allocates its KV cache and warms up each time) and adds
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
 */
import { KerneltuneError, isKerneltuneError, type Combo } from '@kerneltune/core'
import { loadServer, machineDevice, openServer, type LoadServerOptions, type OpenServer, type ServerTarget, type SessionResult } from './serving-session.node.ts'

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

export interface ServerPool {
  /** A measured session on the combination's server (launched on first use). */
  session(combo: Combo, o: Omit<LoadServerOptions, 'loadsBefore'>): Promise<SessionResult>
  stats(): PoolStats
  close(): Promise<void>
}

interface Entry { server: OpenServer; loads: number; lastUsed: number }

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

  const open = async (combo: Combo, onProgress?: (m: string) => void): Promise<Entry> => {
    const max = o.max ?? Infinity
    while (entries.size >= max) {
      const [k, lru] = [...entries].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0]!
      entries.delete(k)
      evictions++
      await lru.server.stop()
    }
    launches++
    const server = await openServer({ target: o.target, combo, ...(o.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: o.readyTimeoutMs }), ...(onProgress ? { onProgress } : {}) })
    const entry = { server, loads: 0, lastUsed: tick }
    entries.set(key(combo), entry)
    return entry
  }

  const measure = async (combo: Combo, lo: Omit<LoadServerOptions, 'loadsBefore'>): Promise<SessionResult> => {
    if (closed) throw new KerneltuneError('INVALID_INPUT', 'the server pool is closed')
    const k = key(combo)
    const notes: string[] = []
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
      entry ??= await open(combo, lo.onProgress)
      entry.lastUsed = ++tick
      try {
        const levels = await loadServer(entry.server, { ...lo, loadsBefore: entry.loads })
        entry.loads += levels.length
        return { server: entry.server.server, device: o.device ?? machineDevice(), levels, notes: [...entry.server.notes, ...notes] }
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
