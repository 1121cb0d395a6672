import type { Combo } from '../dimensions.ts'
import type { HardwareSpec } from '../schemas/hardware.ts'
import type { RegistryEntry } from '../schemas/runs.ts'
import type { RegistryKernelUse } from '../schemas/registry-kernel.ts'
import type { ModelSpec } from '../schemas/model.ts'
import type { Workload } from '../schemas/workload.ts'
import type { MaybePromise, PluginBase } from './plugin.ts'

/** The metrics of one repetition. Every field is optional except latency. */
export interface RepetitionMetrics {
  /** Wall or device time of the measured unit of work, in milliseconds. */
  readonly latencyMs: number
  readonly throughputTps?: number
  readonly prefillTps?: number
  readonly decodeTps?: number
  readonly ttftMs?: number
  readonly peakMemoryBytes?: number
  /** Kernel-time breakdown (name → ms) where the backend can give one. */
  readonly breakdown?: Readonly<Record<string, number>>
  /**
   * A serving backend's load run behind this repetition: its duration and every request it sent,
   * so latency objectives, goodput and the --records lines can be computed from what is stored.
   */
  readonly serving?: ServedLoad
}

/** One request of a load run, as latency objectives read it (the shape of serving's RequestRecord). */
export interface ServedRequest {
  readonly ok: boolean
  /** Client clock when sent (ms), for ordering. */
  readonly startMs: number
  readonly e2eMs: number
  readonly ttftMs?: number
  readonly outputTokens?: number
  /** Gaps between successive content chunks after the first. */
  readonly itlMs: number[]
  readonly error?: string
}

export interface ServedLoad {
  /** Seconds from the first request sent to the last one done (goodput is per second of this). */
  readonly durationS: number
  // Mutable arrays: the stored shape (RepetitionMetricsSchema) is the same type.
  readonly requests: ServedRequest[]
}

export interface MeasurementRequest {
  readonly combo: Combo
  readonly engine?: string
  readonly hardware?: HardwareSpec
  readonly model?: ModelSpec
  readonly workload?: Workload
  readonly repetitions: number
  readonly warmups: number
  readonly signal?: AbortSignal
  readonly onProgress?: (done: number, total: number) => void
  /**
   * The run tenant's Tier 3 registry entries, when the run opted into them. A backend that can run
   * such kernels selects among the approved ones of each kernel family it runs; the others it
   * reports as excluded. Backends that run no registry kernels ignore it.
   */
  readonly registryKernels?: readonly RegistryEntry[]
}

export interface MeasurementResult {
  readonly backend: string
  /** True when nothing was run: the numbers come from a model. Such results must say so. */
  readonly simulated: boolean
  /** What was measured on, in words (device name, driver, build). */
  readonly device: string
  readonly repetitions: readonly RepetitionMetrics[]
  readonly notes?: readonly string[]
  /** Which registry kernels were selected (and used or not) and which were excluded, and why. */
  readonly registryKernels?: readonly RegistryKernelUse[]
  /** The launch this measurement paid (a server started for it), with its phases; absent when it ran on one already up. */
  readonly launch?: MeasurementLaunch
}

/**
 * One launch of what measurements run on (a server process): why, whether it came up, and where
 * its time went (`phases`: named marks in ms since the spawn, e.g. listeningMs, modelLoadedMs,
 * readyMs, warmupEndMs; `spawnedAt` the wall clock).
 */
export interface MeasurementLaunch {
  readonly reason: string
  readonly ok: boolean
  readonly error?: string
  readonly phases?: Readonly<Record<string, number | string>>
}

/** What a backend's prepare() made of one combination. */
export interface PreparedMeasurement {
  readonly ok: boolean
  /** Why it cannot be measured (it failed to start): the combination's failure. */
  readonly error?: string
  /** Launched and warmed up: its first measurement needs no warm-up. */
  readonly warmed: boolean
  readonly launch?: MeasurementLaunch
}

/**
 * What a real backend stands in for when it does not run the target itself: `engine` when it runs
 * its own kernels instead of the target engine's, `device` when it runs on this machine's device
 * instead of the target hardware. `runs` says what it runs, in a few words.
 */
export interface MeasurementProxy {
  readonly engine: boolean
  readonly device: boolean
  readonly runs?: string
}

/** Measures a combination on something real (or, when `simulated`, predicts it and says so). */
export interface MeasurementBackend extends PluginBase<'measurement-backend'> {
  readonly simulated: boolean
  /** Set when the numbers are a proxy for the target engine and/or device; runs say so. */
  readonly proxy?: MeasurementProxy
  /**
   * The catalog dimensions whose values change what is run. Absent: every dimension. A run reports
   * the others as not measured and leaves them out of its winner.
   */
  readonly exercises?: readonly string[]
  /**
   * Catalog dimensions this backend cannot exercise at all (node-llama-cpp in-process has no
   * server slots): a run holds them at their default value instead of multiplying its
   * combinations by them, and says so (`heldAtDefault` in its summary).
   */
  readonly ignores?: readonly string[]
  /**
   * Values of an exercised dimension that run the same work here (e.g. fp16 and bf16 both as f16
   * weights): a winner's value is reported with the ones it was not told apart from.
   */
  readonly equivalentValues?: Readonly<Record<string, readonly (readonly string[])[]>>
  /**
   * The device measure() runs on, in words, without measuring (it may start the device). Real
   * backends give it so that cached results are keyed by the device that measured them.
   */
  device?(): Promise<string>
  /** Whether this backend can run here (a device exists, a binary loads). */
  available?(): MaybePromise<{ ok: boolean; reason?: string }>
  measure(request: MeasurementRequest): Promise<MeasurementResult>
  /**
   * Brings up what measuring these combinations needs (a server each) before any is measured, in
   * parallel where it can, and warms it up, so that a design that revisits combinations (the
   * interleaved sweep) pays its launches before its first round rather than inside it. Optional;
   * one result per request, in order; a failure is returned, not thrown.
   */
  prepare?(requests: readonly MeasurementRequest[]): Promise<readonly PreparedMeasurement[]>
  /**
   * Releases what the backend keeps between measurements (servers kept across rounds). The
   * executor of a run calls it when the run ends, however it ends, on a backend made for that run
   * (ModelFileBackend's forModel with the run's options). Optional.
   */
  close?(): MaybePromise<void>
}
