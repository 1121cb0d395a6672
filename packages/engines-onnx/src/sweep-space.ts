/**
 * ONNX Runtime's CPU sweep space (`kerneltune sweep --engine onnx`): which of its session options
 * a sweep crosses, the values ORT uses when an option is not set (the baseline), and the space as
 * a catalog extension. Moved out of the CLI (issue 36), so the sweep's planning is the engine's.
 */
import { KerneltuneError } from '@kerneltune/core/lite'
import type { CatalogExtension, Combo } from '@kerneltune/core'
import { ORT_CPU_DEFAULTS, ORT_CPU_DIMENSIONS } from './cpu.ts'

export type OnnxSweepSpace = Readonly<Record<string, readonly string[]>>

/** A combination less the values ONNX Runtime uses when the option is not set. */
export function onnxWithoutDefaults(combo: Combo): Combo {
  const defaults: Readonly<Record<string, string>> = ORT_CPU_DEFAULTS
  return Object.fromEntries(Object.entries(combo).filter(([k, v]) => defaults[k] !== v))
}

/** A combination as its settings that differ from ORT's defaults, without the `ort_` prefix. */
export const onnxComboLabel = (c: Combo): string => Object.entries(onnxWithoutDefaults(c)).map(([k, v]) => `${k.replace(/^ort_/, '')}=${v}`).join(' ') || '(ORT defaults)'

/**
 * The swept space: quick crosses intra-op threads (up to the machine's cores) with the
 * MatMulNBits accuracy level, the two settings that move a 4-bit decoder most on a CPU;
 * standard adds the execution mode and thread spinning. `override` replaces whole dimensions.
 */
export function onnxSweepSpace(mode: 'quick' | 'standard', logicalCores: number, override: OnnxSweepSpace = {}): OnnxSweepSpace {
  const threads = ['auto', ...['1', '2', '4', '8', '16', '32'].filter((t) => Number(t) <= Math.max(1, logicalCores))]
  const base: Record<string, readonly string[]> = { ort_intra_op_threads: threads, ort_matmulnbits_accuracy: ['model', '4'] }
  if (mode === 'standard') Object.assign(base, { ort_execution_mode: ['sequential', 'parallel'], ort_intra_op_spinning: ['on', 'off'] })
  const space = { ...base, ...override }
  for (const [id, values] of Object.entries(space)) {
    const dim = ORT_CPU_DIMENSIONS.find((d) => d.id === id)
    if (!dim) throw new KerneltuneError('INVALID_INPUT', `ONNX Runtime's CPU execution provider has no dimension ${id}; known: ${ORT_CPU_DIMENSIONS.map((d) => d.id).join(', ')}`)
    const bad = values.filter((v) => !dim.values.some((x) => x.id === v))
    if (values.length === 0 || bad.length) throw new KerneltuneError('INVALID_INPUT', `${id}: ${values.length === 0 ? 'needs at least one value' : `unknown values ${bad.join(', ')}`}; known: ${dim.values.map((v) => v.id).join(', ')}`)
  }
  return space
}

/** The space as the onnx engine's catalog extension: its swept dimensions, each with the sweep's values. */
export function onnxSweepExtension(space: OnnxSweepSpace): CatalogExtension {
  const dimensions = ORT_CPU_DIMENSIONS.filter((d) => space[d.id]).map((d) => ({ ...d, quickValues: [...space[d.id]!] }))
  return { dimensions, rules: [], coreDimensions: [] }
}
