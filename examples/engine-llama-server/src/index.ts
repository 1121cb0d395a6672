/**
 * @module kerneltune-engine-llama-server
 * An example third-party kerneltune engine plugin for llama.cpp's `llama-server`. It imports only
 * from `@kerneltune/core`, the published API, and passes the same conformance suite as the
 * first-party engines. Read it next to docs/writing-an-engine-plugin.md.
 *
 * @example
 * ```ts
 * import { createRegistry } from '@kerneltune/core'
 * import { llamaServerEngine } from 'kerneltune-engine-llama-server'
 * const engine = createRegistry().register(llamaServerEngine())
 * await engine.translate({ attention_backend: 'flash_attn_v2' }, { model: 'model.gguf' })
 * // { ok: true, argv: ['llama-server', '--model', 'model.gguf', '--flash-attn', 'on'], ... }
 * ```
 */
import {
  applyControls,
  ComboSchema,
  CORE_DIMENSION_VALUES,
  KerneltuneError,
  validateWith,
  type Combo,
  type CoreDimensionId,
  type EnginePlugin,
  type Refusal,
  type TranslateContext,
  type TranslateResult,
} from '@kerneltune/core'
import { llamaServerServing } from './serving.ts'

// --- Facts about the engine, as data, with where they come from --------------------------------
// Flag spellings: ggml-org/llama.cpp common/arg.cpp (`--flash-attn on|off|auto`), in the release
// node-llama-cpp 3.22.1 bundles (tag v0.5.0). GGML_CUDA_DISABLE_GRAPHS: ggml/src/ggml-cuda,
// read at run time by the CUDA backend (which captures graphs by default).
const VERSIONS = ['v0.5.0'] as const
const NAME = 'llama-server'

// The core dimensions llama-server has a run-time control for. The others are left to it: the KV
// cache is always one contiguous buffer, GEMM kernels are chosen at build time
// (GGML_CUDA_FORCE_MMQ / GGML_CUDA_FORCE_CUBLAS), compute types follow the GGUF weights, and the
// backends fuse a fixed set of operations. `applyControls` accepts their neutral values (what a
// run's baseline carries) with a note and refuses anything else.
const CONTROLS: readonly CoreDimensionId[] = ['attention_backend', 'cuda_graph']

/** Options of the factory. Plain data, so the plugin stays a plain object. */
export interface LlamaServerOptions {
  /** The server binary; default `llama-server`. */
  readonly binary?: string
}

type Plan = { argv: string[]; env: Record<string, string>; notes: string[] }
type Values = Partial<Record<keyof typeof CORE_DIMENSION_VALUES, string>>

/** A refusal names the dimension, its value and why; `translate` never throws for a valid combo. */
type Refuse = { refuse: keyof typeof CORE_DIMENSION_VALUES; reason: string }
const no = (refuse: Refuse['refuse'], reason: string): Refuse => ({ refuse, reason })

// --- The mapping, one dimension at a time ------------------------------------------------------
function plan(v: Values): Plan | Refuse {
  const out: Plan = { argv: [], env: {}, notes: [] }

  if (v.attention_backend === 'flash_attn_v2') out.argv.push('--flash-attn', 'on')
  else if (v.attention_backend === 'native') out.argv.push('--flash-attn', 'off')
  else if (v.attention_backend !== undefined) {
    return no('attention_backend', 'llama.cpp has one FlashAttention kernel of its own (on, off or auto); it has no FA3, FlashInfer, xformers or PagedAttention kernels')
  }
  if (v.attention_backend === 'flash_attn_v2') out.notes.push("flash_attn_v2 stands for llama.cpp's own FlashAttention kernel.")

  if (v.cuda_graph === 'off') out.env.GGML_CUDA_DISABLE_GRAPHS = '1'
  else if (v.cuda_graph === 'per-shape') out.notes.push('The CUDA backend captures graphs for decode by default.')
  else if (v.cuda_graph === 'dynamic') {
    return no('cuda_graph', 'the CUDA backend re-captures a graph whenever the shapes change; dynamic-shape graphs cannot be expressed')
  }
  return out
}

// --- The plugin ---------------------------------------------------------------------------------
/** Creates the llama-server engine plugin. */
export function llamaServerEngine(options: LlamaServerOptions = {}): EnginePlugin {
  const refusal = (version: string, dimension: string, value: string, reason: string): Refusal => ({ ok: false, engine: NAME, version, dimension, value, reason })
  return {
    name: NAME,
    kind: 'engine',
    apiVersion: 1,
    displayName: 'llama.cpp llama-server',
    description: 'Example third-party plugin: llama-server flags and environment.',
    defaultVersion: VERSIONS[0],
    supportedVersions: () => [...VERSIONS],
    controls: CONTROLS,
    // Optional: with it, kerneltune's `server` backend and gateway launch the engine live.
    serving: llamaServerServing(),
    translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
      // 1. The version: an unsupported one is a caller error, not a refusal.
      const version = context.version ?? VERSIONS[0]
      if (!(VERSIONS as readonly string[]).includes(version)) {
        // Naming the plugin keeps the code: the registry passes such errors through unchanged.
        throw new KerneltuneError('INVALID_INPUT', `llama-server version ${version} is not supported; supported versions: ${VERSIONS.join(', ')}`, { plugin: NAME })
      }
      // 2. The shape: a combo that is not a map of strings is a caller error too.
      const checked = validateWith(ComboSchema, combo)
      if (!checked.ok) throw new KerneltuneError('INVALID_INPUT', `invalid llama-server combination: ${checked.errors.join('; ')}`, { plugin: NAME })
      const values = checked.value
      // 3. Unknown dimensions and values are refused, naming them.
      for (const [dimension, value] of Object.entries(values)) {
        const known = (CORE_DIMENSION_VALUES as Record<string, readonly string[]>)[dimension]
        if (!known) return refusal(version, dimension, value, `llama-server knows no dimension ${dimension}`)
        if (!known.includes(value)) return refusal(version, dimension, value, `${value} is not a value of ${dimension}; known: ${known.join(', ')}`)
      }
      // 4. Dimensions llama-server does not control: the neutral value is left to it, others refused.
      const controlled = applyControls(NAME, 'llama-server', version, values, CONTROLS)
      if (!controlled.ok) return controlled
      // 5. The mapping.
      const p = plan(controlled.combo)
      if ('refuse' in p) return refusal(version, p.refuse, values[p.refuse]!, p.reason)
      return {
        ok: true,
        engine: NAME,
        version,
        argv: [options.binary ?? 'llama-server', '--model', context.model ?? 'MODEL.gguf', ...p.argv],
        env: p.env,
        files: {},
        notes: [...controlled.notes, ...p.notes, ...(context.model === undefined ? ['Replace MODEL.gguf with the model file.'] : [])],
      }
    },
  }
}

export { llamaServerServing } from './serving.ts'
