import type { Combo, CoreDimensionId } from '../dimensions.ts'
import type { HardwareSpec } from '../schemas/hardware.ts'
import type { ModelSpec } from '../schemas/model.ts'
import type { CatalogExtension } from './catalog-extension.ts'
import type { MaybePromise, PluginBase } from './plugin.ts'
import type { ServingCapability } from './serving.ts'
import type { TritonBackendProvider } from './triton-backend.ts'

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

/** How an inventory entry's value is checked. */
export type InventoryValueType = 'bool' | 'int' | 'float' | 'str' | 'json' | 'any'

/** What an engine release accepts for one flag or environment variable. */
export interface InventoryEntry {
  readonly type?: InventoryValueType
  /** Accepted values; compared as strings. */
  readonly choices?: readonly (string | number)[]
  /** False for switches that take no value (argparse store_true, clap bool). Default true. */
  readonly takesValue?: boolean
  /** One or more values follow the flag (argparse nargs='+'). */
  readonly list?: boolean
  /** The value is one word holding a list split by this delimiter (clap `value_delimiter`). */
  readonly delimiter?: string
}

/**
 * The names and values one engine release accepts, kept as data beside the translator. The
 * conformance suite checks every translation against the inventory of the version it targets.
 */
export interface EngineInventory {
  readonly flags: Readonly<Record<string, InventoryEntry>>
  readonly env: Readonly<Record<string, InventoryEntry>>
  /**
   * Keys of structured values, by the flag or file that holds them: a JSON object given to that
   * flag (or written to that file) may only use these keys, nested ones as dotted paths
   * (`--compilation-config` → `['mode', 'pass_config', 'pass_config.enable_fusion']`).
   */
  readonly configKeys?: Readonly<Record<string, readonly string[]>>
  /** Where these facts come from: source files at a tag or commit, or an executed binary's help. */
  readonly evidence?: readonly string[]
  /** Engine-specific checks (config files, JSON-valued flags); returns the problems found. */
  readonly check?: (translation: Translation) => readonly string[]
}

/**
 * An engine plugin. `translate` must only emit flags, variables and values that exist in the
 * engine version it targets, and refuse (never throw) for a combination the engine cannot express.
 *
 * `controls` lists the core dimensions the engine has a real control for. The catalog sweeps only
 * those for the engine and pins the rest to their neutral value (CORE_DIMENSION_NEUTRAL);
 * `translate` accepts that neutral value for an uncontrolled dimension with a note that the choice
 * is left to the engine, and refuses any other value (`applyControls` in the engine kit does both).
 */
export interface EnginePlugin extends PluginBase<'engine'> {
  /** Human name, e.g. "vLLM". */
  readonly displayName: string
  /** The version used when the caller gives none; one of `supportedVersions()`. */
  readonly defaultVersion: string
  supportedVersions(): readonly string[]
  /**
   * The core dimensions this engine controls. Optional only so that plugins written before the
   * field existed keep loading (as controlling all six, see `engineControls`); the conformance
   * suite requires it, so every conforming plugin declares it.
   */
  readonly controls?: readonly CoreDimensionId[]
  /**
   * What a supported version accepts (flags, variables, config keys), or undefined when no
   * inventory is kept for it. The conformance suite checks every translation against it.
   */
  inventory?(version: string): EngineInventory | undefined
  translate(combo: Combo, context?: TranslateContext): MaybePromise<TranslateResult>
  /** Dimensions and legality rules this engine adds to the catalog. */
  readonly catalogExtension?: CatalogExtension
  /**
   * Present when this engine can serve as a Triton Inference Server backend: the Triton engine
   * looks it up in the registry (triton-backend.ts) to build that backend's model repository.
   */
  readonly tritonBackend?: TritonBackendProvider
  /**
   * Present when a translation can be launched as a live OpenAI-compatible server (serving.ts):
   * the program, readiness, version probe, metric names and log classes the generic `server`
   * measurement backend and the gateway read. Absent: the engine translates only.
   */
  readonly serving?: ServingCapability
}

/**
 * The engines an engine plugin may consult (the Triton engine finds its backends' providers
 * here): a Registry satisfies it, and so does `{ list: () => plugins }`.
 */
export interface EngineLookup {
  list(kind: 'engine'): readonly EnginePlugin[]
}
