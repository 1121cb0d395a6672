/**
 * What every path of `kerneltune sweep` plans with (moved out of the CLI, issue 36): the per-mode
 * run lengths, the spaces enumerated through the catalog with each engine's rules (llama.cpp
 * in-process, llama.cpp's serving space, ONNX Runtime's CPU options), and the flags the paths
 * read, typed as the command declares them.
 */
import type { Combo, HardwareSpec } from '@kerneltune/core'
import { servingSweepExtension, servingSweepSpace, sweepExtension, sweepSpace, withoutDefaults, withoutServingDefaults, type SweepSpace } from '@kerneltune/engines-llamacpp'
import { onnxSweepExtension, onnxSweepSpace, onnxWithoutDefaults, type OnnxSweepSpace } from '@kerneltune/engines-onnx'
import type { RoundsTest, SweepMetric } from '@kerneltune/experiment'
import type { GateMethod } from '@kerneltune/stats'
import { planThroughCatalog, type SweepPlan } from '@kerneltune/tuner'

export type { SweepPlan }
export { parseSpace } from './space.ts'
export type SweepMode = 'quick' | 'standard'

/** The sweep command's flags, as its table types them (every field the paths read). */
export interface SweepFlags {
  readonly engine?: string | undefined
  readonly gguf?: string | undefined
  readonly onnx?: string | undefined
  readonly params?: string | undefined
  readonly weights?: 'q4' | 'fp16' | 'fp32' | undefined
  readonly vocabSize?: number | undefined
  readonly quick?: boolean | undefined
  readonly space?: string | undefined
  readonly metric?: SweepMetric | undefined
  readonly gate?: GateMethod | undefined
  readonly epsilon?: number | undefined
  readonly margin?: number | undefined
  readonly reps?: number | undefined
  readonly minReps?: number | undefined
  readonly warmup?: number | undefined
  readonly noiseFloor?: number | undefined
  readonly noEarlyStop?: boolean | undefined
  readonly promptTokens?: number | undefined
  readonly genTokens?: number | undefined
  readonly gpu?: 'off' | 'auto' | 'cuda' | 'vulkan' | undefined
  readonly backend?: string | undefined
  readonly design?: 'sequential' | 'interleaved' | undefined
  readonly rounds?: number | undefined
  readonly timeBudget?: number | undefined
  readonly out?: string | undefined
  readonly concurrency?: number | undefined
  readonly requests?: number | undefined
  readonly seed?: number | undefined
  readonly prelaunch?: 'on' | 'off' | undefined
  readonly capacity?: boolean | undefined
  readonly capacityBy?: 'rate' | 'concurrency' | undefined
  readonly test?: RoundsTest | undefined
  readonly records?: string | undefined
  readonly slo?: string | undefined
  readonly objective?: string | undefined
  readonly plan?: boolean | undefined
}

/** Per-mode run lengths: quick is sized for a tiny model on 2 cores in 1–2 minutes. */
export const SWEEP_DEFAULTS = {
  quick: { promptTokens: 64, genTokens: 16, minReps: 3, maxReps: 4, rounds: 8 },
  standard: { promptTokens: 128, genTokens: 32, minReps: 3, maxReps: 8, rounds: 12 },
} as const

/** The in-process space through the catalog, with llama.cpp's legality rules. */
export function planSweep(mode: SweepMode, hardware: HardwareSpec, logicalCores: number, override?: SweepSpace): SweepPlan {
  const space = sweepSpace(mode, logicalCores, override)
  return planThroughCatalog(mode, space, sweepExtension(space), withoutDefaults, hardware, 'llamacpp')
}

/** The serving space (slots and continuous batching added) through the catalog, without the all-defaults combo. */
export function planServingSweep(mode: SweepMode, hardware: HardwareSpec, logicalCores: number, override?: Readonly<Record<string, readonly string[]>>): SweepPlan {
  const space = { ...servingSweepSpace(mode, logicalCores), ...override }
  return planThroughCatalog(mode, space, servingSweepExtension(space), withoutServingDefaults, hardware, 'llamacpp')
}

/** ONNX Runtime's CPU space enumerated as the onnx engine's extension, less the ORT defaults (the baseline). */
export function planOnnxSweep(mode: SweepMode, hardware: HardwareSpec, logicalCores: number, override?: OnnxSweepSpace): SweepPlan {
  const space = onnxSweepSpace(mode, logicalCores, override)
  return planThroughCatalog(mode, space, onnxSweepExtension(space), onnxWithoutDefaults, hardware, 'onnx')
}

/** A combination as its settings that differ from the defaults (the serving defaults include the in-process ones). */
export const comboLabel = (c: Combo): string => Object.entries(withoutServingDefaults(c)).map(([k, v]) => `${k}=${v}`).join(' ') || '(defaults)'
