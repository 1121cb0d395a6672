/**
 * What the GPU evidence kit measures, as data: the models it synthesizes, the serving sweep's
 * space and the load levels, for the CUDA run on a device and for the shortened CPU run that CI
 * uses to test every line of the kit. Pure: no process, no file.
 */

export type KitMode = 'cuda' | 'cpu'

export interface KitModel {
  /** File stem and the name in every result. */
  readonly id: string
  readonly family: 'llama-1b' | 'llama-3b' | 'llama-8b' | 'llama-14b' | 'moe' | 'moe-128x' | 'tiny' | 'tiny-moe'
  readonly quant: 'Q4_0' | 'Q8_0' | 'F16'
  /** `kerneltune model synth` flags besides --quant and --out. */
  readonly synthArgs: readonly string[]
}

export interface KitBenchSettings {
  /** llama-bench prompt length (pp) and generated tokens (tg), as the public data uses. */
  readonly promptTokens: number
  readonly genTokens: number
  readonly reps: number
}

export interface KitPlan {
  readonly mode: KitMode
  /** In priority order: when time runs short the last ones are skipped, and the skip is reported. */
  readonly models: readonly KitModel[]
  readonly bench: KitBenchSettings
  /** The model `bench serve` loads (its id). */
  readonly serveModel: string
  /**
   * The model the serving sweep loads: every arm keeps its own llama-server up across the rounds,
   * so on the GPU this is the small model (twelve 8B servers with their KV caches would not fit
   * in 80 GB, and its rounds are short enough for the seven the sign-flip test needs).
   */
  readonly sweepModel: string
  readonly sweep: {
    readonly space: Readonly<Record<string, readonly string[]>>
    readonly concurrency: number
    readonly requests: number
    readonly promptTokens: number
    readonly outputTokens: number
    readonly rounds: number
    /** Objectives a chat deployment would state on this kind of device. */
    readonly slo: string
    /** Search the capacity (requests in flight) of the defaults and the winner under the objectives. */
    readonly capacity: boolean
  }
  readonly serve: {
    readonly concurrency: readonly number[]
    /** Measured requests per level (at least twice the level, so every slot turns over). */
    readonly requests: (concurrency: number) => number
    readonly promptTokens: number
    readonly outputTokens: number
  }
}

const QUANTS = ['Q4_0', 'Q8_0', 'F16'] as const

function family(f: KitModel['family'], args: readonly string[], quants: readonly KitModel['quant'][] = QUANTS): KitModel[] {
  return quants.map((quant) => ({ id: `${f}-${quant.toLowerCase()}`, family: f, quant, synthArgs: args }))
}

/** Priority: every shape in Q4_0 first, then Q8_0, then F16 (the largest files last). */
function byQuantFirst(models: readonly KitModel[]): KitModel[] {
  return QUANTS.flatMap((q) => models.filter((m) => m.quant === q))
}

export function kitPlan(mode: KitMode): KitPlan {
  if (mode === 'cuda') {
    // Llama 3.2 1B's shape (with its output matrix untied: 1.5B), Llama 3 8B's shape, and a
    // Mixtral-style MoE of 6.0B parameters, 8 experts with 2 used per token (1.8B active); then
    // (issue 26: more sizes and a many-expert MoE for the regressor's current-build CUDA rows)
    // Llama 3.2 3B's shape (untied: 3.6B), Qwen2.5 14B's widths (14.9B) and a Qwen3-30B-A3B-like
    // MoE of 30B with 128 narrow experts, 8 routed (3.0B active). The 30B MoE has no F16 file:
    // 60 GB would not fit the lent machine's disk beside the others.
    const models = byQuantFirst([
      ...family('llama-1b', ['--params', '1.2B', '--hidden', '2048', '--layers', '16', '--ffn', '8192', '--vocab-size', '128256', '--context-length', '8192']),
      ...family('llama-8b', ['--params', '8B', '--hidden', '4096', '--layers', '32', '--ffn', '14336', '--vocab-size', '128256', '--context-length', '8192']),
      ...family('moe', ['--params', '6B', '--experts', '8', '--experts-used', '2', '--vocab-size', '32000', '--context-length', '8192']),
      ...family('llama-3b', ['--params', '3.2B', '--hidden', '3072', '--layers', '28', '--ffn', '8192', '--vocab-size', '128256', '--context-length', '8192']),
      ...family('llama-14b', ['--params', '14B', '--hidden', '5120', '--layers', '48', '--ffn', '13824', '--vocab-size', '152064', '--context-length', '8192']),
      ...family('moe-128x', ['--params', '30B', '--hidden', '2048', '--layers', '48', '--ffn', '768', '--experts', '128', '--experts-used', '8', '--vocab-size', '151936', '--context-length', '8192'], ['Q4_0', 'Q8_0']),
    ])
    return {
      mode,
      models,
      bench: { promptTokens: 512, genTokens: 128, reps: 3 },
      serveModel: 'llama-8b-q4_0',
      sweepModel: 'llama-1b-q4_0',
      sweep: {
        // Flash attention, slots and a quantized V cache (which needs flash attention): 6 legal
        // candidates and the defaults, 7 arms. No CUDA graphs: the serving sweep varies llama.cpp's
        // own settings only (servingSweepExtension has no core dimensions), so a cuda_graph entry
        // here was dropped without a word and the "12 arms" were 7 (kit.test.ts plans this call).
        // The micro-batch is left at its default here (see the README). Threads stay at
        // llama.cpp's own choice (auto), which on a full offload barely matters.
        space: { threads: ['auto'], flash_attn: ['on', 'off'], parallel: ['auto', '8'], cache_type_v: ['f16', 'q8_0'] },
        concurrency: 16,
        requests: 32,
        promptTokens: 256,
        outputTokens: 64,
        rounds: 7,
        slo: 'ttft_p99_ms=500,tpot_p99_ms=50',
        capacity: true,
      },
      serve: { concurrency: [1, 8, 32, 128], requests: (c) => Math.max(16, 2 * c), promptTokens: 256, outputTokens: 128 },
    }
  }
  // The CPU run: tiny files, short runs, the same code paths.
  const models = byQuantFirst([
    ...family('tiny', ['--params', '8M', '--vocab-size', '512', '--context-length', '1024']),
    ...family('tiny-moe', ['--params', '12M', '--experts', '4', '--experts-used', '2', '--vocab-size', '512', '--context-length', '1024']),
  ])
  return {
    mode,
    models,
    bench: { promptTokens: 32, genTokens: 8, reps: 2 },
    serveModel: 'tiny-q4_0',
    sweepModel: 'tiny-q4_0',
    sweep: {
      space: { threads: ['auto'], parallel: ['auto'], flash_attn: ['on', 'off'], cache_type_v: ['f16', 'q8_0'] },
      concurrency: 2,
      requests: 4,
      promptTokens: 16,
      outputTokens: 8,
      rounds: 2,
      slo: 'ttft_p99_ms=5000,tpot_p99_ms=1000',
      // Loose objectives on a tiny model hold up to hundreds in flight: the search would be long,
      // and bench capacity's own tests cover it.
      capacity: false,
    },
    serve: { concurrency: [1, 2], requests: (c) => Math.max(2, 2 * c), promptTokens: 16, outputTokens: 8 },
  }
}

/**
 * The hardware preset for a GPU as nvidia-smi names it, for the datasheet roofline; undefined for
 * a card without one (then the kit needs KT_KIT_MEM_BW_GBS and KT_KIT_TFLOPS).
 */
export function presetForGpu(name: string): string | undefined {
  const n = name.toLowerCase()
  if (n.includes('gh200')) return n.includes('144') ? 'gh200-144gb' : 'gh200'
  if (n.includes('h200')) return 'h200'
  if (n.includes('h100')) {
    if (n.includes('nvl')) return 'h100-nvl'
    if (n.includes('pcie')) return 'h100-pcie'
    // "NVIDIA H100 80GB HBM3" is the SXM5 board (the PCIe board says PCIe).
    return 'h100-sxm'
  }
  return undefined
}
