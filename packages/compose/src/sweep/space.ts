/**
 * `--space` JSON, read before any engine is loaded: dimension → list of values (each engine's
 * planner checks them against its dimensions). In compose's light entry, for the CLI's start-up.
 */
import { KerneltuneError } from '@kerneltune/core/lite'

export type SpaceOverride = Readonly<Record<string, readonly string[]>>

export function parseSpace(json: string): SpaceOverride {
  let v: unknown
  try {
    v = JSON.parse(json)
  } catch {
    throw new KerneltuneError('INVALID_INPUT', `--space is not JSON: ${json}`)
  }
  const ok = typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => Array.isArray(x) && x.every((y) => typeof y === 'string'))
  if (!ok) throw new KerneltuneError('INVALID_INPUT', `--space must map dimensions to lists of string values, e.g. {"threads":["1","2"]}; got ${json}`)
  return v as SpaceOverride
}

/** The engine of a GGUF model, which `kerneltune sweep` plans by default (in-process, or as its server). */
export const SWEEP_GGUF_ENGINE = 'llamacpp'
/** The backends a sweep measures with: the GGUF engine in-process, any serving engine as its server, ONNX Runtime in-process. */
export const SWEEP_BACKENDS = { inProcess: 'node-llama-cpp', server: 'server', onnx: 'onnxruntime' } as const
