/**
 * What each supported llama.cpp build accepts, as data with its evidence: the flags and ggml
 * variables this translator emits, and how each build loads models and reads `-fa`. Facts for
 * b6343 and b10114 come from /work/shared/reference/engines/VERSIONS.md §0 and §5; those for
 * v0.5.0 from its own source (common/arg.cpp, ggml/src) and from `llama-server --help` of the
 * binary built from it (tooling/scripts/build-llama-server.sh), which the serving tests launch.
 */
import type { EngineInventory, InventoryEntry } from '@kerneltune/core'
import { ENV, FLAGS, KV_CACHE_TYPES, LLAMACPP_VERSION } from './facts.ts'

/** Newest first; the first is the default and the build the repository's launcher runs. */
export const LLAMACPP_BUILDS = [LLAMACPP_VERSION, 'b10114', 'b6343'] as const
export type LlamacppBuild = (typeof LLAMACPP_BUILDS)[number]

export interface LlamacppBuildFacts {
  readonly build: LlamacppBuild
  /**
   * How mmap/mlock are set: `load-mode` values, or the older `--no-mmap` / `--mlock` switches.
   * `mlockWithoutMmap` says whether a build can lock a model it does not memory-map.
   */
  readonly loading: { readonly by: 'load-mode'; readonly modes: readonly string[]; readonly mlockWithoutMmap: boolean } | { readonly by: 'switches' }
  /** `--n-gpu-layers` takes `auto` and `all` besides a number. */
  readonly gpuLayersWords: boolean
  /** The ggml variables known to be read by this build. */
  readonly env: readonly string[]
  readonly evidence: readonly string[]
}

export const LLAMACPP_BUILD_FACTS: Readonly<Record<LlamacppBuild, LlamacppBuildFacts>> = {
  [LLAMACPP_VERSION]: {
    build: LLAMACPP_VERSION,
    loading: { by: 'load-mode', modes: ['auto', 'none', 'mmap', 'mlock', 'mmap+mlock', 'dio'], mlockWithoutMmap: true },
    gpuLayersWords: true,
    env: [ENV.disableCudaGraphs, ENV.disableCudaFusion, ENV.disableVulkanFusion, ENV.cublasComputeType],
    evidence: [
      'ggml-org/llama.cpp de3ff81 (2026-09-28), bundled by node-llama-cpp 3.22.1 as tag v0.5.0: common/arg.cpp "-lm, --load-mode" auto|none|mmap|mlock|mmap+mlock|dio; no --mmap/--no-mmap/--mlock; "-fa, --flash-attn [on|off|auto]"; "-ngl" takes a number, auto or all',
      'ggml/src: getenv GGML_CUDA_DISABLE_GRAPHS (ggml-cuda/common.cuh), GGML_CUDA_DISABLE_FUSION and GGML_CUDA_CUBLAS_COMPUTE_TYPE (ggml-cuda.cu), GGML_VK_DISABLE_FUSION (ggml-vulkan.cpp)',
      'executed: llama-server --help of the CPU build from this source (tooling/scripts/build-llama-server.sh)',
    ],
  },
  b10114: {
    build: 'b10114',
    // `auto` (PR #26081) was merged the same day; whether b10114 has it is not verified.
    loading: { by: 'load-mode', modes: ['none', 'mmap', 'mlock', 'dio'], mlockWithoutMmap: false },
    gpuLayersWords: false,
    env: [ENV.disableCudaGraphs],
    evidence: [
      'VERSIONS.md §0/§5: --load-mode {none,mmap,mlock,dio} present in build 10114 (PR #20834, ed7adbfef, 2026-07-24); --mmap/--no-mmap deprecated; mlock implies mmap (no no-mmap + mlock)',
      'VERSIONS.md §5: -fa takes on|off|auto since b6343',
      'VERSIONS.md §5: GGML_CUDA_DISABLE_GRAPHS (ggml-cuda common.cuh, commit not recorded); the other ggml variables not verified',
    ],
  },
  b6343: {
    build: 'b6343',
    loading: { by: 'switches' },
    gpuLayersWords: false,
    env: [ENV.disableCudaGraphs],
    evidence: [
      'VERSIONS.md §0/§5: -fa takes on|off|auto from b6343 (2025-09-01); --mlock and --no-mmap (idx@25d5b0c5 README, Aug 2025) until --load-mode (build 10114)',
      'VERSIONS.md §5: -t, -b (2048), -ub (512), -ctk/-ctv f32|f16|bf16|q8_0|q4_0|q4_1|iq4_nl|q5_0|q5_1 (idx@25d5b0c5 README)',
      'VERSIONS.md §5: GGML_CUDA_DISABLE_GRAPHS; the other ggml variables not verified',
    ],
  },
}

/** The facts of a supported build. */
export function buildFacts(build: string): LlamacppBuildFacts {
  return LLAMACPP_BUILD_FACTS[build as LlamacppBuild]
}

/** The builds (newest first) whose facts satisfy `ok`, to name in a refusal. */
export function buildsWhere(ok: (f: LlamacppBuildFacts) => boolean): string[] {
  return LLAMACPP_BUILDS.filter((b) => ok(LLAMACPP_BUILD_FACTS[b]))
}

const ENV_VALUES: Readonly<Record<string, InventoryEntry>> = {
  [ENV.disableCudaGraphs]: {},
  [ENV.disableCudaFusion]: { type: 'int' },
  [ENV.disableVulkanFusion]: {},
  [ENV.cublasComputeType]: { choices: ['f32', 'fp32', 'f16', 'fp16', 'bf16', 'auto'] },
}

/** The llama-server flags and ggml variables this plugin may emit for a build. */
export function llamacppInventory(build: string): EngineInventory {
  const f = buildFacts(build)
  const layers: InventoryEntry = f.gpuLayersWords ? {} : { type: 'int' }
  const flags: Record<string, InventoryEntry> = {
    [FLAGS.model]: { type: 'str' },
    [FLAGS.threads]: { type: 'int' },
    [FLAGS.batch_size]: { type: 'int' },
    [FLAGS.ubatch_size]: { type: 'int' },
    [FLAGS.flash_attn]: { choices: ['on', 'off', 'auto'] },
    [FLAGS.cache_type_k]: { choices: KV_CACHE_TYPES },
    [FLAGS.cache_type_v]: { choices: KV_CACHE_TYPES },
    [FLAGS.gpu_layers]: layers,
    [FLAGS.ctx_size]: { type: 'int' },
    [FLAGS.host]: { type: 'str' },
    [FLAGS.port]: { type: 'int' },
  }
  if (f.loading.by === 'load-mode') flags[FLAGS.load_mode] = { choices: f.loading.modes }
  else {
    flags['--no-mmap'] = { takesValue: false }
    flags['--mlock'] = { takesValue: false }
  }
  const env = Object.fromEntries(f.env.map((name) => [name, ENV_VALUES[name]!]))
  // A number, or (where the build takes them) auto / all: arg.cpp maps them to -1 / -2.
  const check: EngineInventory['check'] = (t) => {
    const i = t.argv.indexOf(FLAGS.gpu_layers)
    if (i < 0) return []
    const v = t.argv[i + 1] ?? ''
    return (f.gpuLayersWords ? /^(\d+|auto|all)$/ : /^\d+$/).test(v) ? [] : [`${FLAGS.gpu_layers} ${v} is not accepted by ${build}`]
  }
  return { flags, env, evidence: f.evidence, check }
}
