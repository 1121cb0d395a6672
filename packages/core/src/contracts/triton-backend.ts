/**
 * An optional capability of an engine plugin: serving its models as a backend of Triton
 * Inference Server. The Triton engine writes the model repository and the server command line;
 * what the backend is told (engine arguments, a build step, environment) is the engine's own
 * knowledge, so the Triton engine asks the engine for it through this contract instead of
 * importing the engine's package. Any engine in the registry can provide it, a third-party one
 * included, and Triton then serves that engine's models with `options.backend` set to its name.
 */
import type { Combo } from '../dimensions.ts'
import type { HardwareSpec } from '../schemas/hardware.ts'

/** The backend's side of a Triton translation. */
export interface TritonBackendPlan {
  readonly ok: true
  /**
   * The model's engine arguments. Triton writes them where its backend reads them: config.pbtxt
   * parameters for `tensorrtllm` and for backends it does not know, model.json for `vllm`.
   */
  readonly args: Readonly<Record<string, unknown>>
  /** Flags of a build step that must run before serving (trtllm-build's), as flag/value pairs. */
  readonly build?: readonly (readonly [string, string])[]
  /** Environment of the tritonserver process (the backend runs inside it). */
  readonly env: Readonly<Record<string, string>>
  readonly notes: readonly string[]
}

/** Why the backend cannot express a combination: the dimension and the reason. */
export interface TritonBackendRefusal {
  readonly ok: false
  readonly dimension: string
  readonly reason: string
}

/** What a backend plans for: the providing engine's version and the Triton translation's context. */
export interface TritonBackendContext {
  /** A version of the providing engine, one of its `supportedVersions()` (already checked). */
  readonly version: string
  readonly model?: string
  readonly hardware?: HardwareSpec
  readonly options?: Readonly<Record<string, unknown>>
}

export interface TritonBackendProvider {
  /** Triton's name of the backend, as config.pbtxt's `backend:` writes it (`tensorrtllm`, `vllm`). */
  readonly backend: string
  /** Plans a combination for this backend; refuses (never throws) what the engine cannot express. */
  plan(combo: Combo, context: TritonBackendContext): TritonBackendPlan | TritonBackendRefusal
}
