import type { Combo } from '../schemas/combo.ts'
import type { HardwareSpec } from '../schemas/hardware.ts'
import type { ModelSpec } from '../schemas/model.ts'
import type { CatalogExtension } from './catalog-extension.ts'
import type { MaybePromise, PluginBase } from './plugin.ts'

/** What a translation needs besides the combination. */
export interface TranslateContext {
  /** Engine version; defaults to the plugin's `defaultVersion`. */
  readonly version?: string
  /** Model id or path as the engine should receive it. */
  readonly model?: string
  readonly modelSpec?: ModelSpec
  readonly hardware?: HardwareSpec
  /** Engine-specific extras (ports, parallelism, paths). Unknown keys are ignored. */
  readonly options?: Readonly<Record<string, unknown>>
}

/** The engine's command line, environment and config files for a combination. */
export interface Translation {
  readonly ok: true
  readonly engine: string
  readonly version: string
  readonly argv: readonly string[]
  readonly env: Readonly<Record<string, string>>
  /** File name → content (Triton's config.pbtxt, ONNX Runtime options...). */
  readonly files: Readonly<Record<string, string>>
  /** Human notes: approximations made, defaults relied on. */
  readonly notes: readonly string[]
}

/** Why an engine cannot express a combination. */
export interface Refusal {
  readonly ok: false
  readonly engine: string
  readonly version: string
  readonly dimension: string
  readonly value: string
  readonly reason: string
}

export type TranslateResult = Translation | Refusal

/**
 * An engine plugin. `translate` must only emit flags, variables and values that exist in the
 * engine version it targets, and refuse (never throw) for a combination the engine cannot express.
 */
export interface EnginePlugin extends PluginBase<'engine'> {
  /** Human name, e.g. "vLLM". */
  readonly displayName: string
  /** The version used when the caller gives none; one of `supportedVersions()`. */
  readonly defaultVersion: string
  supportedVersions(): readonly string[]
  translate(combo: Combo, context?: TranslateContext): MaybePromise<TranslateResult>
  /** Dimensions and legality rules this engine adds to the catalog. */
  readonly catalogExtension?: CatalogExtension
}
