/**
 * The one error type of kerneltune. Every error has a stable `code` that callers and the HTTP API
 * can switch on, an actionable message, optional structured `details`, and, when it came out of
 * a plugin, the plugin's name and the hook that threw.
 */

/** Stable error codes, alphabetised. Add new codes here; never rename or reuse one. */
export const ERROR_CODES = [
  'BUDGET_EXHAUSTED',
  'CANCELLED',
  'CONFLICT',
  'DEVICE_UNAVAILABLE',
  'DUPLICATE_PLUGIN',
  'ENGINE_NOT_INSTALLED',
  'FEATURE_DISABLED',
  'FORBIDDEN',
  'INCOMPATIBLE_PLUGIN',
  'INSUFFICIENT_DATA',
  'INTERNAL',
  'INVALID_FEATURE',
  'INVALID_FORMAT',
  'INVALID_INPUT',
  'INVALID_PLUGIN',
  'IO',
  'MEASUREMENT_FAILED',
  'MODEL_NOT_FOUND',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'PLUGIN_ERROR',
  'PLUGIN_NOT_FOUND',
  'PREDICTION_FAILED',
  'REQUEST_TIMEOUT',
  'SERIALIZATION',
  'TRAINING_FAILED',
  'UNAUTHORIZED',
  'UNSUPPORTED',
  'UNSUPPORTED_COMBINATION',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

// A registered symbol, so that `isKerneltuneError` works across duplicate copies of this package
// (where `instanceof` would fail).
const MARKER = Symbol.for('kerneltune.error')

export interface KerneltuneErrorOptions {
  cause?: unknown
  details?: unknown
  plugin?: string
  hook?: string
}

export class KerneltuneError extends Error {
  readonly code: ErrorCode
  readonly details?: unknown
  readonly plugin?: string
  readonly hook?: string
  readonly [MARKER] = true

  constructor(code: ErrorCode, message: string, options: KerneltuneErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'KerneltuneError'
    this.code = code
    if (options.details !== undefined) this.details = options.details
    if (options.plugin !== undefined) this.plugin = options.plugin
    if (options.hook !== undefined) this.hook = options.hook
  }

  /** A JSON-safe view, used by the CLI's `--json` output and the HTTP API. */
  toJSON(): { code: ErrorCode; message: string; details?: unknown; plugin?: string; hook?: string } {
    return {
      code: this.code,
      message: this.message,
      ...(this.details === undefined ? {} : { details: this.details }),
      ...(this.plugin === undefined ? {} : { plugin: this.plugin }),
      ...(this.hook === undefined ? {} : { hook: this.hook }),
    }
  }
}

/** True for any kerneltune error, even one from another copy of this package. */
export function isKerneltuneError(value: unknown): value is KerneltuneError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true
}

/** Builds an error; the short form used throughout the packages. */
export function kerneltuneError(code: ErrorCode, message: string, options?: KerneltuneErrorOptions): KerneltuneError {
  return new KerneltuneError(code, message, options)
}

/** Wraps whatever a plugin threw, naming the plugin and the hook and keeping the cause. */
export function pluginError(plugin: string, hook: string, cause: unknown): KerneltuneError {
  if (isKerneltuneError(cause) && cause.plugin === plugin) return cause
  const reason = cause instanceof Error ? cause.message : String(cause)
  return new KerneltuneError('PLUGIN_ERROR', `[plugin ${plugin}] ${hook} failed: ${reason}`, {
    cause,
    plugin,
    hook,
    details: isKerneltuneError(cause) ? { pluginCode: cause.code } : undefined,
  })
}
