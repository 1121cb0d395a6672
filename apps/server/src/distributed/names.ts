/**
 * Names shared by the dispatcher (the server) and the workers: BullMQ queue names, job ids and the
 * Redis keys where workers announce themselves. Both sides must derive them the same way.
 */
import { Redis } from 'ioredis'
import { deviceFingerprint } from '@kerneltune/tuner'
import { deviceId } from '../device.ts'

/** Prefix of every BullMQ key and of the worker announcements. */
export const DEFAULT_PREFIX = 'kerneltune'
/** Combinations any worker may measure. */
export const ANY_DEVICE_QUEUE = 'combos'

export interface ComboJobData { runId: string; index: number }
export interface ComboJobResult { outcome: 'stored' | 'duplicate' | 'skipped'; device?: string; worker: string; deviceFingerprint: string }
/** A whole run (job name 'run'): a design that pairs measurements by round (interleaved) runs on one worker, one device. */
export interface RunJobData { runId: string; whole: true }
export interface RunJobResult { outcome: string; device?: string; worker: string; deviceFingerprint: string }
/** A tune trial of a q-batch (job name 'trial'), on the same queues as combinations. */
export interface TrialJobData { sessionId: string; index: number; combo: Record<string, string> }
export interface TrialJobResult { value: number | null; metrics: Record<string, unknown> | null }

/**
 * The queue of runs that require a device: named by the device's fingerprint, so that a run can
 * name the device by its name or by the fingerprint a worker printed.
 */
export function deviceQueue(device: string): string {
  return `combos-device-${deviceId(device)}`
}

/**
 * The job id of one combination of one run: a second enqueue of the same combination (a restarted
 * server re-dispatching a run) finds the job and adds nothing. BullMQ ids may not contain ':'.
 */
export const comboJobId = (runId: string, index: number): string => `${comboJobPrefix(runId)}${index}`

/** What every combination job id of one run starts with (the dispatcher matches queue events by it). */
export const comboJobPrefix = (runId: string): string => `${runId.replace(/:/g, '_')}.c`

/** The job id of a run measured whole by one worker (it shares the run's prefix, so the dispatcher hears its events). */
export const runJobId = (runId: string): string => `${comboJobPrefix(runId)}all`

/** A trial's job id: (session, trial index, configuration), since a resumed session may ask another configuration at that index. */
export const trialJobId = (sessionId: string, index: number, combo: Record<string, string>): string =>
  `${sessionId.replace(/:/g, '_')}.t${index}.${deviceFingerprint(JSON.stringify(Object.entries(combo).sort()))}`

export const workerKey = (prefix: string, id: string): string => `${prefix}:workers:${id}`

/** A connection as BullMQ needs it (blocking commands wait as long as they must). */
export function connect(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false })
}
