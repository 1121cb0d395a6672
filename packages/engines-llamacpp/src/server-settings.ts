/**
 * llama-server's own settings, the ones that only matter when it serves several requests: the
 * number of slots (-np/--parallel) and continuous batching (-cb/--no-cont-batching). They live
 * here, beside the translator rather than in it, as a wrapper plugin: the sweep of server settings
 * translates these two and hands the rest of a combination to the llama.cpp translator unchanged.
 * Read from the source node-llama-cpp 3.22.1 bundles (common/arg.cpp, tools/server/server.cpp).
 */
import { CONTRACT_VERSIONS } from '@kerneltune/core/lite'
import type { CatalogExtension, Combo, DimensionSpec, EnginePlugin, TranslateContext, TranslateResult } from '@kerneltune/core'
import { LLAMACPP_DIMENSIONS, LLAMACPP_RULES } from './catalog-extension.ts'
import { llamacppEngine, type LlamacppEngineOptions } from './engine.ts'
import { DEFAULTS, SOURCE } from './facts.ts'
import { llamacppServing, type LlamacppServingOptions } from './serving.ts'
import { threadValues } from './sweep-space.ts'

/** llama-server defaults: --parallel -1 (auto: 4 slots with a unified KV cache), continuous batching on. */
export const SERVER_DEFAULTS = { parallel: 'auto', cont_batching: 'on' } as const

export const SERVER_FLAGS = { parallel: '--parallel', contBatching: '--cont-batching', noContBatching: '--no-cont-batching' } as const

const ENGINES = ['llamacpp'] as const

export const LLAMACPP_SERVER_DIMENSIONS: readonly DimensionSpec[] = [
  {
    id: 'parallel',
    title: 'Server slots',
    description: `Requests llama-server decodes at once (-np/--parallel). auto: 4 slots sharing one KV cache (${SOURCE}: tools/server/server.cpp); an explicit N splits the context among N slots.`,
    values: [{ id: 'auto', description: '4 slots, unified KV cache' }, ...['1', '2', '4', '8'].map((id) => ({ id, description: `${id} slots` }))],
    defaultValue: SERVER_DEFAULTS.parallel,
    engines: ENGINES,
    quickValues: ['auto', '1'],
  },
  {
    id: 'cont_batching',
    title: 'Continuous batching',
    description: 'Insert new requests into the running batch as slots free up (-cb/--no-cont-batching).',
    values: [{ id: 'on', description: 'continuous (dynamic) batching' }, { id: 'off', description: 'a new batch only when the previous one is done' }],
    defaultValue: SERVER_DEFAULTS.cont_batching,
    engines: ENGINES,
  },
]

const SERVER_IDS = new Set(LLAMACPP_SERVER_DIMENSIONS.map((d) => d.id))

/** Every dimension a serving sweep may use: the translator's and the server's. */
export const LLAMACPP_SERVING_EXTENSION: CatalogExtension = { dimensions: [...LLAMACPP_DIMENSIONS, ...LLAMACPP_SERVER_DIMENSIONS], rules: LLAMACPP_RULES, coreDimensions: [] }

/** A combo without the values that are llama-server's defaults (translator and server settings). */
export function withoutServingDefaults(combo: Combo): Combo {
  const defaults: Record<string, string> = { ...DEFAULTS, ...SERVER_DEFAULTS }
  return Object.fromEntries(Object.entries(combo).filter(([k, v]) => defaults[k] !== v))
}

/**
 * The llama.cpp plugin with server settings: `parallel` and `cont_batching` become flags, the rest
 * goes through the llama.cpp translator (which refuses what it cannot express).
 */
export function llamacppServerEngine(options: LlamacppEngineOptions & LlamacppServingOptions = {}): EnginePlugin {
  const base = llamacppEngine(options)
  return {
    ...base,
    description: `${base.description} With llama-server's slots and continuous batching.`,
    apiVersion: CONTRACT_VERSIONS.engine,
    catalogExtension: LLAMACPP_SERVING_EXTENSION,
    serving: llamacppServing(options.locate ? { locate: options.locate } : {}),
    async translate(combo: Combo, context?: TranslateContext): Promise<TranslateResult> {
      const rest = Object.fromEntries(Object.entries(combo).filter(([k]) => !SERVER_IDS.has(k)))
      const t = await base.translate(rest, context)
      if (!t.ok) return t
      const refuse = (dimension: string, value: string, reason: string): TranslateResult => ({ ok: false, engine: t.engine, version: t.version, dimension, value, reason })
      const extra: string[] = []
      const p = combo.parallel
      if (p !== undefined && p !== 'auto') {
        if (!/^[1-9]\d*$/.test(p)) return refuse('parallel', p, `parallel must be auto or a positive number of slots, got ${p}`)
        extra.push(SERVER_FLAGS.parallel, p)
      }
      const cb = combo.cont_batching
      if (cb !== undefined) {
        if (cb !== 'on' && cb !== 'off') return refuse('cont_batching', cb, `cont_batching must be on or off, got ${cb}`)
        if (cb === 'off') extra.push(SERVER_FLAGS.noContBatching)
      }
      return { ...t, argv: [...t.argv, ...extra] }
    },
  }
}

export const SERVING_SWEEP_MODES = ['quick', 'standard'] as const
export type ServingSweepMode = (typeof SERVING_SWEEP_MODES)[number]

/**
 * What a serving sweep tries. Quick: threads, slots (auto vs 1) and flash attention (12 arms on 2
 * cores). Standard: threads, slots auto/1/2, continuous batching, micro-batch and V cache type (72
 * arms on 2 cores). Batch size, flash attention and the K cache go in through an override.
 */
export function servingSweepSpace(mode: ServingSweepMode, logicalCores: number): Readonly<Record<string, readonly string[]>> {
  const threads = threadValues(logicalCores)
  if (mode === 'quick') return { threads, parallel: ['auto', '1'], flash_attn: ['auto', 'off'] }
  return { threads, parallel: ['auto', '1', '2'], cont_batching: ['on', 'off'], ubatch_size: ['128', '512'], cache_type_v: ['f16', 'q8_0'] }
}

/** The space as a catalog extension (swept dimensions only, each with the sweep's values as quick values). */
export function servingSweepExtension(space: Readonly<Record<string, readonly string[]>>): CatalogExtension {
  const dimensions = LLAMACPP_SERVING_EXTENSION.dimensions.filter((d) => space[d.id]).map((d) => ({ ...d, quickValues: [...space[d.id]!] }))
  return { dimensions, rules: LLAMACPP_RULES, coreDimensions: [] }
}
