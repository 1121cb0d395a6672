/**
 * How a run is measured on the `server` backend beyond its workload, stored with the run
 * (`options.serving`) so that every executor of it (the sweep, the server's queue, a worker)
 * measures it alike: the requests of each repetition, the servers kept up across a design's
 * rounds and how many launch at once before round 1, and how warm-ups are sent. A sweep computes
 * them once, for the machine it plans on (serverSweepSettings), and stores them.
 */
import { availableParallelism, freemem } from 'node:os'
import { parseWith, type HardwareSpec } from '@kerneltune/core'
import { z } from 'zod'

/** How a run is measured on the server backend beyond its workload (all optional). */
export interface ServingRunSettings {
  requests?: number
  keepServers?: number
  parallelLaunches?: number
  serialWarmups?: boolean
  skipEngineWarmup?: boolean
}

export const ServingRunSettingsSchema: z.ZodType<ServingRunSettings> = z.object({
  /** Measured requests per repetition, exactly (default: 8, at least 4 per concurrent stream). */
  requests: z.number().int().positive(),
  /** Keep each combination's server up between measurements, at most this many at once (least recently used stopped first). */
  keepServers: z.number().int().positive(),
  /** prepare() launches the kept servers this many at a time before round 1. */
  parallelLaunches: z.number().int().positive(),
  /** Warm-up requests one at a time (the behaviour before issue 35) instead of waves of the load's concurrency. */
  serialWarmups: z.boolean(),
  /** Launch with the engine's skipWarmupArgs: the launcher warms each server with its load right after. */
  skipEngineWarmup: z.boolean(),
}).partial()

/** The serving settings a run stored (options.serving), checked; {} for a run without them. */
export function storedServingSettings(options: Readonly<Record<string, unknown>> | undefined): ServingRunSettings {
  const raw = options?.serving
  return raw === undefined ? {} : parseWith(ServingRunSettingsSchema, raw, "the run's serving settings (options.serving)")
}

/**
 * Launches at once before round 1. On a CPU one: every server computes on the same cores (the
 * defaults' threads fill all of them), and on a 2-core machine two servers launching or warming
 * together each took 2-4 times as long as alone, spinning on each other's barriers
 * (bench/results/launch-cost.json, issue 35), so overlapping them gains nothing there. On a GPU as
 * many as there are host cores, within the servers memory keeps: a launch there is mostly device
 * set-up and weight upload. Not yet measured on a GPU: an engine that fits unset settings to the
 * device memory free at its start (the GGUF engine's -fit, on by default upstream: common/common.cpp 1295-1327)
 * may, where memory is tight, see memory that servers starting beside it are about to take.
 */
export function parallelLaunches(kept: number, kind: HardwareSpec['kind'], cores: number = availableParallelism()): number {
  return kind === 'cpu' ? 1 : Math.max(1, Math.min(kept, cores))
}

/**
 * Servers the interleaved design keeps up at once: one per arm where memory allows. A server is
 * counted as the model's size (CPU builds may repack weights into their own memory rather than
 * share the mapped file) plus 256 MiB of KV cache and buffers, against half the free memory.
 */
export function keptServers(arms: number, modelBytes: number, free: number = freemem()): number {
  const perServer = modelBytes + 256 * 2 ** 20
  return Math.max(1, Math.min(arms, Math.floor((free / 2) / perServer)))
}

export interface ServerSweepInput {
  readonly design: 'sequential' | 'interleaved'
  /** The design's arms: every candidate, the defaults and (interleaved) the A/A copy of them. */
  readonly arms: number
  readonly modelBytes: number
  readonly hardwareKind: HardwareSpec['kind']
  /** Start every kept server before round 1 and warm it with a wave of the load (interleaved only). */
  readonly prelaunch: boolean
  readonly warmups: number
  readonly requests: number
  /** Free memory, for tests; default os.freemem(). */
  readonly free?: number
}

export interface ServerSweepSettings {
  readonly serving: ServingRunSettings
  /** Warm-ups of a revisit: none when every arm's server stays up between its visits. */
  readonly revisitWarmups: number
  readonly prelaunch: boolean
}

/** What a sweep on the server backend stores: its servers kept (sequential: the current one, across its chunks), their launches and warm-ups. */
export function serverSweepSettings(i: ServerSweepInput): ServerSweepSettings {
  const keep = i.design === 'sequential' ? 1 : keptServers(i.arms, i.modelBytes, i.free)
  const prelaunch = i.design === 'interleaved' && i.prelaunch
  return {
    serving: {
      requests: i.requests, keepServers: keep,
      ...(prelaunch ? { parallelLaunches: parallelLaunches(keep, i.hardwareKind), skipEngineWarmup: i.warmups > 0 } : { serialWarmups: true }),
    },
    revisitWarmups: keep >= i.arms ? 0 : i.warmups,
    prelaunch,
  }
}
