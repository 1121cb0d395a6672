/**
 * What makes a sweep's run resumable after its process died: the run stores the sweep's own flags
 * (as a command line, so a resume parses them with the command's own table and types) and the
 * core count its plan was made for, and the process measuring it holds a claim on the run with
 * its pid, host and a heartbeat (store migration 9). A resume takes the claim over only when the
 * holder is gone: on this host its pid no longer exists, elsewhere its heartbeat is older than
 * the lease. `--force` takes it regardless, for a holder that is hung. (Moved out of the CLI, issue
 * 36; the command turns its flags into the stored command line.)
 */
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import process from 'node:process'
import { z } from 'zod'
import { KerneltuneError, type Run } from '@kerneltune/core'
import type { RunOwner, Store } from '@kerneltune/store'
import { RUN_OWNER_LEASE_MS } from '@kerneltune/tuner'

/** How often the measuring process says it is alive. */
export const HEARTBEAT_MS = 5_000
/** A holder on another host whose heartbeat is older than this is taken for dead (the tuner's lease, which the generic executor honours too). */
export const LEASE_MS = RUN_OWNER_LEASE_MS

/** The sweep's flags as a command line (`--name=value`, parsed back by the command's own table) and the core count its plan was made for. */
export interface SweepSpec {
  argv: string[]
  cores: number
}
const SweepSpecSchema: z.ZodType<SweepSpec> = z.object({ argv: z.array(z.string()), cores: z.number().int().positive() })

/** The sweep spec a run stores, or undefined for a run no sweep made. */
export function storedSweepSpec(run: Pick<Run, 'target'>): SweepSpec | undefined {
  const raw = run.target.options?.sweep
  if (raw === undefined) return undefined
  const parsed = SweepSpecSchema.safeParse(raw)
  if (!parsed.success) throw new KerneltuneError('INVALID_INPUT', `run's stored sweep settings are not readable: ${parsed.error.message}`)
  return parsed.data
}

export function newOwner(now: Date = new Date()): RunOwner {
  return { id: randomUUID(), pid: process.pid, host: hostname(), startedAt: now.toISOString(), heartbeatAt: now.toISOString() }
}

const pidExists = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Whether the process holding a run is alive, and why the answer is what it is. */
export function ownerLiveness(owner: RunOwner, o: { now?: number; host?: string; exists?: (pid: number) => boolean } = {}): { alive: boolean; why: string } {
  const age = Math.round(((o.now ?? Date.now()) - Date.parse(owner.heartbeatAt)) / 1000)
  const where = `pid ${owner.pid} on ${owner.host}, last heartbeat ${age} s ago`
  if (age * 1000 > LEASE_MS) return { alive: false, why: `${where} (older than the ${LEASE_MS / 1000} s lease)` }
  if (owner.host === (o.host ?? hostname())) {
    return (o.exists ?? pidExists)(owner.pid) ? { alive: true, why: `${where} (the process exists)` } : { alive: false, why: `${where} (no such process)` }
  }
  return { alive: true, why: `${where} (within the ${LEASE_MS / 1000} s lease)` }
}

/** A claim this process holds on a run, with its heartbeat running; release() stops both. */
export interface RunHold {
  readonly owner: RunOwner
  release(): Promise<void>
}

/**
 * Claims a run for this process: a new run (previous holder none), or a run to resume, which is
 * refused while its holder is alive unless `force`. The heartbeat runs until release().
 */
export async function holdRun(store: Store, runId: string, o: { force?: boolean } = {}): Promise<RunHold> {
  const current = await store.runs.owner(runId)
  if (current && !o.force) {
    const l = ownerLiveness(current)
    if (l.alive) {
      throw new KerneltuneError('CONFLICT', `run ${runId} is being measured by another process: ${l.why}. If that process is hung or gone, add --force to take the run over.`)
    }
  }
  let owner = newOwner()
  if (!(await store.runs.claim(runId, owner, current?.id ?? null))) {
    throw new KerneltuneError('CONFLICT', `run ${runId} was claimed by another process at the same time; try again`)
  }
  const timer = setInterval(() => {
    owner = { ...owner, heartbeatAt: new Date().toISOString() }
    void store.runs.heartbeat(runId, owner).catch(() => {})
  }, HEARTBEAT_MS)
  // The heartbeat keeps no process alive by itself.
  timer.unref?.()
  return {
    owner,
    async release() {
      clearInterval(timer)
      await store.runs.release(runId, owner.id)
    },
  }
}
