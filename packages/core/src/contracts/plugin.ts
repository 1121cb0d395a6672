/**
 * The shape every plugin shares. A plugin is a plain object, usually returned by a factory
 * (`vllmEngine()`), with a unique `name`, the `kind` of contract it implements and the contract
 * version (`apiVersion`) it was written against.
 */

/** The current major version of each plugin contract. A plugin must declare the same number. */
export const CONTRACT_VERSIONS = {
  engine: 1,
  'measurement-backend': 1,
  'search-strategy': 1,
  predictor: 1,
  'kernel-provider': 1,
  'kernel-generator': 1,
} as const

export type PluginKind = keyof typeof CONTRACT_VERSIONS
export const PLUGIN_KINDS = Object.keys(CONTRACT_VERSIONS) as PluginKind[]

export type MaybePromise<T> = T | Promise<T>

export interface PluginBase<K extends PluginKind = PluginKind> {
  /** Unique in a registry; lower-case, for example `engine:vllm` or `vllm`. */
  readonly name: string
  readonly kind: K
  /** The contract version this plugin implements; see CONTRACT_VERSIONS. */
  readonly apiVersion: number
  readonly description?: string
}
