/**
 * Turns a CPU translation (cpu.ts) into the object onnxruntime-node's InferenceSession.create
 * takes: string values become the numbers and booleans the binding checks for, dotted keys become
 * session config entries (`extra.session`), and the MatMulNBits accuracy level is returned apart,
 * because a model's own MatMulNBits nodes take it from their attribute (cpu-release.ts). Pure, so
 * it is tested without loading ONNX Runtime.
 */
import { KerneltuneError } from '@kerneltune/core/lite'
import type { Translation } from '@kerneltune/core'
import { CPU_CONFIG_KEYS } from './cpu-release.ts'

/** The subset of onnxruntime-node's InferenceSession.SessionOptions the CPU translation sets. */
export interface CpuSessionOptions {
  executionProviders: ['cpu']
  graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'layout' | 'all'
  executionMode?: 'sequential' | 'parallel'
  intraOpNumThreads?: number
  interOpNumThreads?: number
  enableCpuMemArena?: boolean
  enableMemPattern?: boolean
  extra?: { session: Record<string, string> }
}

export interface AppliedSession {
  readonly options: CpuSessionOptions
  /** The accuracy level to set on the model's MatMulNBits nodes, when the translation names one. */
  readonly matMulNBitsAccuracy?: number
}

export function sessionOptionsOf(translation: Translation): AppliedSession {
  const raw = JSON.parse(translation.files['session_options.json'] ?? '{}') as Record<string, string>
  const options: CpuSessionOptions = { executionProviders: ['cpu'] }
  const config: Record<string, string> = {}
  const bool = (key: string, v: string) => {
    if (v !== '0' && v !== '1') throw new KerneltuneError('INVALID_INPUT', `session option ${key}=${v} is not "0" or "1"`)
    return v === '1'
  }
  for (const [key, value] of Object.entries(raw)) {
    switch (key) {
      case 'graphOptimizationLevel': options.graphOptimizationLevel = value as CpuSessionOptions['graphOptimizationLevel']; break
      case 'executionMode': options.executionMode = value as CpuSessionOptions['executionMode']; break
      case 'intraOpNumThreads': options.intraOpNumThreads = Number(value); break
      case 'interOpNumThreads': options.interOpNumThreads = Number(value); break
      case 'enableCpuMemArena': options.enableCpuMemArena = bool(key, value); break
      case 'enableMemPattern': options.enableMemPattern = bool(key, value); break
      default:
        if (!key.includes('.')) throw new KerneltuneError('INVALID_INPUT', `session option ${key} is not one the CPU translation writes`)
        config[key] = value
    }
  }
  if (Object.keys(config).length > 0) options.extra = { session: config }
  const level = config[CPU_CONFIG_KEYS.qdqMatMulNBitsAccuracyLevel]
  return { options, ...(level === undefined ? {} : { matMulNBitsAccuracy: Number(level) }) }
}
