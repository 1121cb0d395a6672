/**
 * The kernels kit's two boundaries, in zod: what run.sh hands the script about the host (driver,
 * Vulkan loader and ICDs, the kit's manifest), and the results file the script writes, which the
 * CI test and a reader of a lease's output parse back.
 */
import { z } from 'zod'
import { SHAPE_IDS, MODES } from './plan.ts'

const num = z.number().finite()

/** Written by run.sh before the script starts: what WebGPU cannot tell about the device. */
export const HostInfoSchema = z.object({
  /** nvidia-smi's name and driver version, else the Mesa Vulkan driver package's version. */
  gpu: z.string().nullable(),
  driver: z.string().nullable(),
  driverSource: z.string(),
  vulkan: z.object({
    /** The loader library the process resolves (its file name carries the version). */
    loader: z.string().nullable(),
    loaderSource: z.enum(['system', 'kit-root', 'kit-private', 'none']),
    icds: z.array(z.object({ file: z.string(), apiVersion: z.string().nullable(), libraryPath: z.string().nullable() })),
  }),
  os: z.string(),
  cpu: z.string(),
  kit: z.object({ deno: z.string(), kerneltuneCommit: z.string(), dirty: z.boolean(), packedAt: z.string() }),
  argv: z.string(),
})
export type HostInfo = z.infer<typeof HostInfoSchema>

const Config = z.record(z.string(), z.union([z.number(), z.boolean()]))

const Figure = z.object({
  config: Config,
  configKey: z.string(),
  medianMs: num.positive(),
  gbps: num.nonnegative(),
  tflops: num.nonnegative(),
  /** GEMV: of the copy probe's GB/s; GEMM: of the FMA probe's FLOP/s. Null when that probe is missing. */
  fraction: num.nonnegative().nullable(),
  /** Weight copies the timed runs rotated over (cold weights); 1 when they did not. */
  weightCopies: z.number().int().positive(),
})

const Problem = z.object({ m: z.number().int().positive(), n: z.number().int().positive(), k: z.number().int().positive() })

export const KernelRowSchema = z.object({
  kind: z.enum(['gemv', 'gemm']),
  format: z.enum(['q4_0', 'q8_0', 'f16', 'q2_0', 'q3_0']),
  shape: z.enum(SHAPE_IDS),
  role: z.string(),
  problem: Problem,
  /** The 8B model's shape this one was scaled down from on a CPU adapter; null at full size. */
  fullSize: Problem.nullable(),
  fractionOf: z.enum(['copy', 'fma']),
  /** Activation rows whose outputs every timed configuration was checked on (all m, or a sample). */
  verifiedRows: z.number().int().positive(),
  tried: z.number().int().nonnegative(),
  correct: z.number().int().nonnegative(),
  tuned: Figure.nullable(),
  default: Figure.nullable(),
  /** default / tuned on the timings that picked the winner: biased upward. */
  selectionSpeedup: num.positive().nullable(),
  /** The winner and the default re-timed afresh in paired rounds of random order. */
  confirmation: z.object({
    speedup: num.positive(), low: num.positive(), high: num.positive(), level: num, rounds: z.number().int().positive(),
    verdict: z.enum(['faster', 'no-reliable-win', 'slower']), defaultMedianMs: num.positive(), tunedMedianMs: num.positive(),
  }).nullable(),
  keep: z.enum(['tuned', 'default']).nullable(),
  failures: z.array(z.object({ config: z.string(), error: z.string() })),
  seconds: num.nonnegative(),
})
export type KernelRow = z.infer<typeof KernelRowSchema>

export const CorrectnessFamilySchema = z.object({
  kind: z.enum(['gemv', 'gemm']),
  format: z.enum(['q4_0', 'q8_0', 'f16', 'q2_0', 'q3_0']),
  problem: Problem,
  tried: z.number().int().positive(),
  correct: z.number().int().nonnegative(),
  failures: z.array(z.object({ config: z.string(), error: z.string() })),
})

export const ResultsSchema = z.object({
  schema: z.literal('kerneltune-gpu-kernels-kit/1'),
  startedAt: z.string(),
  finishedAt: z.string(),
  seconds: num.nonnegative(),
  budgetSeconds: num.positive(),
  settings: z.object({
    mode: z.enum(MODES), scale: z.number().int().positive(), warmup: z.number().int().nonnegative(), iterations: z.number().int().positive(),
    maxConfigs: z.number().int().positive(), confirmRounds: z.number().int().nonnegative(), correctnessConfigs: z.number().int().positive(),
    copyBytes: z.number().int().positive(), coldBytes: z.number().int().nonnegative(), fma: z.object({ workgroups: z.number().int().positive(), steps: z.number().int().positive() }),
  }),
  /** Why the shapes are smaller than the 8B model's, when they are. */
  scaled: z.object({ factor: z.number().int().positive(), reason: z.string() }).nullable(),
  adapter: z.object({
    name: z.string(), vendor: z.string(), architecture: z.string(), device: z.string(), description: z.string(),
    isFallbackAdapter: z.boolean(), cpuAdapter: z.boolean(),
    subgroupMinSize: z.number().nullable(), subgroupMaxSize: z.number().nullable(),
    features: z.array(z.string()), limits: z.record(z.string(), z.number()),
    hasTimestamps: z.boolean(), hasF16: z.boolean(), timing: z.enum(['timestamp', 'wall']),
    /** The Vulkan loader and driver libraries the process had mapped (/proc/self/maps), and so wgpu's backend. */
    mapped: z.object({ loader: z.string().nullable(), drivers: z.array(z.string()), backend: z.enum(['vulkan', 'gl', 'unknown']) }),
  }),
  host: HostInfoSchema,
  load: z.object({ start: z.string(), end: z.string() }),
  correctness: z.object({ passed: z.boolean(), tried: z.number().int().nonnegative(), correct: z.number().int().nonnegative(), families: z.array(CorrectnessFamilySchema) }),
  copy: z.object({ gbps: num.positive(), latencyMs: num.positive(), bytes: z.number().int().positive() }).nullable(),
  fma: z.object({ gflops: num.positive(), latencyMs: num.positive(), workgroups: z.number().int().positive(), steps: z.number().int().positive(), flops: num.positive() }).nullable(),
  kernels: z.array(KernelRowSchema),
  profile: z.array(z.object({ kernel: z.literal('gemv q4_0'), problem: Problem, line: z.string(), fractionOfCopy: num.nonnegative() }).passthrough()),
  /** The Metal-Marlin-style autotuner (@kerneltune/metal-marlin-autotune) on the same shapes. */
  autotuner: z.object({
    job: z.record(z.string(), z.unknown()),
    cells: z.array(z.object({ bits: z.array(z.number()), batch: z.number(), hidden: z.number(), tried: z.number(), failed: z.number(), kept: z.enum(['tuned', 'default']).nullable() }).passthrough()),
    error: z.string().optional(),
  }),
  skipped: z.array(z.object({ what: z.string(), why: z.string() })),
})
export type KitResults = z.infer<typeof ResultsSchema>
