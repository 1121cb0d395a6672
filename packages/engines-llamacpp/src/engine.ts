/**
 * The llama.cpp engine plugin: turns a combination into a `llama-server` command line and
 * environment. Written only against the public @kerneltune/core API, as a third party would.
 *
 * @example
 * ```ts
 * const t = await llamacppEngine().translate({ threads: '8', flash_attn: 'on', cache_type_v: 'q8_0' }, { model: 'm.gguf' })
 * // { ok: true, argv: ['llama-server', '-m', 'm.gguf', '--threads', '8', '--flash-attn', 'on', '--cache-type-v', 'q8_0'], ... }
 * ```
 */
import { CONTRACT_VERSIONS, CORE_DIMENSION_VALUES, applyControls, KerneltuneError, isKerneltuneError, parseCombo } from '@kerneltune/core/lite'
import type { Combo, EnginePlugin, Refusal, TranslateContext, TranslateResult } from '@kerneltune/core'
import { LLAMACPP_CATALOG_EXTENSION, LLAMACPP_DIMENSIONS } from './catalog-extension.ts'
import { CORE_MAPPING, LLAMACPP_CONTROLS } from './core-mapping.ts'
import { buildFacts, buildsWhere, LLAMACPP_BUILDS, llamacppInventory, type LlamacppBuildFacts } from './builds.ts'
import { FLAGS, LLAMACPP_VERSION, QUANTIZED_KV_TYPES } from './facts.ts'

export const ENGINE_NAME = 'llamacpp'
export const MODEL_PLACEHOLDER = '<model.gguf>'

const KNOWN: Readonly<Record<string, readonly string[]>> = {
  ...CORE_DIMENSION_VALUES,
  ...Object.fromEntries(LLAMACPP_DIMENSIONS.map((d) => [d.id, d.values.map((v) => v.id)])),
}

/** Dimension → flag, in the order the command line lists them. */
const FLAG_DIMENSIONS = ['threads', 'batch_size', 'ubatch_size', 'flash_attn', 'cache_type_k', 'cache_type_v', 'gpu_layers', 'ctx_size'] as const

/** `--load-mode` (v0.5.0) for the mmap/mlock pair; undefined leaves llama.cpp's `auto`. */
export function loadMode(mmap: string | undefined, mlock: string | undefined): string | undefined {
  if (mmap === undefined && mlock === undefined) return undefined
  const useMmap = mmap !== 'off'
  if (mlock === 'on') return useMmap ? 'mmap+mlock' : 'mlock'
  return useMmap ? 'mmap' : 'none'
}

/**
 * The loading flags of a build for the mmap/mlock pair, or a refusal reason. b10114's modes are
 * none|mmap|mlock|dio with mlock implying mmap; b6343 has only the `--no-mmap` / `--mlock` switches.
 */
function loadingArgs(f: LlamacppBuildFacts, mmap: string | undefined, mlock: string | undefined): string[] | { reason: string; dimension: 'mmap' | 'mlock' } {
  if (mmap === undefined && mlock === undefined) return []
  if (f.loading.by === 'switches') return [...(mmap === 'off' ? ['--no-mmap'] : []), ...(mlock === 'on' ? ['--mlock'] : [])]
  if (f.loading.mlockWithoutMmap) return [FLAGS.load_mode, loadMode(mmap, mlock)!]
  if (mlock === 'on' && mmap === 'off') {
    return { dimension: 'mlock', reason: `llama.cpp ${f.build} has no load mode that locks a model it does not memory-map (mlock implies mmap); it works with ${buildsWhere((x) => x.loading.by === 'switches' || x.loading.mlockWithoutMmap).join(', ')}` }
  }
  return [FLAGS.load_mode, mlock === 'on' ? 'mlock' : mmap === 'off' ? 'none' : 'mmap']
}

export interface LlamacppEngineOptions {
  /** The server binary to put first in argv. Default `llama-server`. */
  readonly binary?: string
}

export function llamacppEngine(options: LlamacppEngineOptions = {}): EnginePlugin {
  const binary = options.binary ?? 'llama-server'
  const refuse = (version: string, dimension: string, value: string, reason: string): Refusal => ({
    ok: false,
    engine: ENGINE_NAME,
    version,
    dimension,
    value,
    reason,
  })

  // Input errors carry the plugin's name, so the registry's wrapper passes them on unchanged
  // (INVALID_INPUT) instead of turning them into PLUGIN_ERROR.
  function translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
    try {
      return translateUnchecked(combo, context)
    } catch (e) {
      if (isKerneltuneError(e) && e.plugin === undefined) {
        throw new KerneltuneError(e.code, e.message, { cause: e, details: e.details, plugin: ENGINE_NAME, hook: 'translate' })
      }
      throw e
    }
  }

  function translateUnchecked(combo: Combo, context: TranslateContext): TranslateResult {
    const version = context.version ?? LLAMACPP_VERSION
    if (!(LLAMACPP_BUILDS as readonly string[]).includes(version)) {
      throw new KerneltuneError('INVALID_INPUT', `llama.cpp version ${version} is not supported; supported builds: ${LLAMACPP_BUILDS.join(', ')} (${LLAMACPP_VERSION} is the one node-llama-cpp 3.22.1 bundles)`)
    }
    const facts = buildFacts(version)
    const parsed = parseCombo(combo, 'llama.cpp combination')
    for (const [dimension, value] of Object.entries(parsed)) {
      const values = KNOWN[dimension]
      if (!values) return refuse(version, dimension, value, `llama.cpp has no dimension ${dimension}; known: ${Object.keys(KNOWN).join(', ')}`)
      if (!values.includes(value)) return refuse(version, dimension, value, `${value} is not a value of ${dimension}; known values: ${values.join(', ')}`)
    }
    const controlled = applyControls(ENGINE_NAME, 'llama.cpp', version, parsed, LLAMACPP_CONTROLS)
    if (!controlled.ok) return controlled
    const env: Record<string, string> = {}
    const notes: string[] = [...controlled.notes]
    for (const [dimension, value] of Object.entries(controlled.combo)) {
      const core = CORE_MAPPING[dimension as keyof typeof CORE_MAPPING]?.[value]
      if (!core) continue
      if (!core.ok) return refuse(version, dimension, value, core.reason)
      const unread = Object.keys(core.env ?? {}).filter((name) => !facts.env.includes(name))
      if (unread.length > 0) {
        return refuse(version, dimension, value, `${unread.join(' and ')} is not verified to be read by llama.cpp ${version}; it works with ${buildsWhere((f) => unread.every((n) => f.env.includes(n))).join(', ')}`)
      }
      Object.assign(env, core.env ?? {})
      if (core.note) notes.push(`${dimension}=${value}: ${core.note}`)
    }
    // The one combination llama.cpp refuses to start with (llama_init_from_model returns null).
    const v = parsed.cache_type_v
    if (v !== undefined && QUANTIZED_KV_TYPES.includes(v) && parsed.flash_attn === 'off') {
      return refuse(version, 'cache_type_v', v, `a quantized V cache (${v}) requires flash attention, and flash_attn is off; use flash_attn on or auto, or an unquantized V cache`)
    }
    const argv = [binary, FLAGS.model, context.model ?? MODEL_PLACEHOLDER]
    for (const dimension of FLAG_DIMENSIONS) {
      const value = parsed[dimension]
      if (value === undefined || (dimension === 'threads' && value === 'auto')) continue
      if (dimension === 'gpu_layers' && !facts.gpuLayersWords && (value === 'auto' || value === 'all')) {
        if (value === 'all') return refuse(version, dimension, value, `--n-gpu-layers all is not verified for llama.cpp ${version} (give a number of layers); it works with ${buildsWhere((f) => f.gpuLayersWords).join(', ')}`)
        notes.push(`gpu_layers=auto: no --n-gpu-layers flag, so llama.cpp ${version} uses its own default (whether that fits layers automatically is not verified for this build)`)
        continue
      }
      argv.push(FLAGS[dimension], value)
    }
    const loading = loadingArgs(facts, parsed.mmap, parsed.mlock)
    if (!Array.isArray(loading)) return refuse(version, loading.dimension, parsed[loading.dimension]!, loading.reason)
    argv.push(...loading)
    const opts = context.options ?? {}
    if (typeof opts.host === 'string') argv.push(FLAGS.host, opts.host)
    if (typeof opts.port === 'number' || typeof opts.port === 'string') argv.push(FLAGS.port, String(opts.port))
    if (context.model === undefined) notes.push(`no model given: argv uses the placeholder ${MODEL_PLACEHOLDER}`)
    if (v !== undefined && QUANTIZED_KV_TYPES.includes(v) && parsed.flash_attn === undefined) {
      notes.push('a quantized V cache makes llama.cpp turn flash attention on (flash_attn auto)')
    }
    return { ok: true, engine: ENGINE_NAME, version, argv, env, files: {}, notes }
  }

  return {
    name: ENGINE_NAME,
    kind: 'engine',
    apiVersion: CONTRACT_VERSIONS.engine,
    description: 'llama.cpp llama-server: threads, batch sizes, flash attention, KV cache types, GPU offload, context and load mode.',
    displayName: 'llama.cpp (llama-server)',
    defaultVersion: LLAMACPP_VERSION,
    supportedVersions: () => [...LLAMACPP_BUILDS],
    controls: LLAMACPP_CONTROLS,
    inventory: (version: string) => ((LLAMACPP_BUILDS as readonly string[]).includes(version) ? llamacppInventory(version) : undefined),
    translate,
    catalogExtension: LLAMACPP_CATALOG_EXTENSION,
  }
}
