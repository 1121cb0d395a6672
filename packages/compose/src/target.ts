/**
 * A target from the fields a person gave (the CLI's model, hardware and workload flags, by their
 * camelCase names): core's HardwareSpec and Workload, and the quant name. Every problem is
 * INVALID_INPUT naming the flag and the accepted values. The model, which may come from a file,
 * is resolved in ./target.node.ts.
 */
import {
  HardwareSpecSchema,
  KerneltuneError,
  QUANT_TYPES,
  normalizeQuantName,
  validateWith,
  type HardwareSpec,
  type KernelTypeName,
  type QuantName,
  type Workload,
} from '@kerneltune/core'
import { HARDWARE_DEFAULTS, HARDWARE_PRESETS, findHardwarePreset } from '@kerneltune/features'

/** What a person gave, by flag name in camelCase (`memBwGbs` for --mem-bw-gbs). */
export type TargetFields = Readonly<Record<string, unknown>>

export interface ResolvedHardware {
  hardware: HardwareSpec
  source: string
  assumptions: string[]
}

const invalid = (message: string) => new KerneltuneError('INVALID_INPUT', message)

/** Reads --quant (any spelling) or fails naming the flag and the accepted names. */
export function parseQuantFlag(raw: unknown): QuantName | undefined {
  if (raw === undefined) return undefined
  const q = normalizeQuantName(String(raw))
  if (!q) throw invalid(`--quant: "${String(raw)}" is not accepted; accepted values: ${QUANT_TYPES.join(', ')} (also Q4K-style and Q4_K_M-style spellings)`)
  return q
}

/**
 * Resolves the hardware flags. `required` false returns undefined when none is given; missing
 * numbers without a preset take the feature vector's unset defaults (1000 GB/s, 100 TFLOPS),
 * recorded in `assumptions`.
 */
export function resolveTargetHardware(flags: TargetFields, required = true): ResolvedHardware | undefined {
  const assumptions: string[] = []
  const any = ['hardware', 'memBwGbs', 'tflops', 'smCount', 'l2Mb', 'unifiedMemory'].some((k) => flags[k] !== undefined)
  if (!any) {
    if (!required) return undefined
    throw invalid('hardware is needed: --hardware NAME (see `kerneltune hardware list`) or --mem-bw-gbs GBS [--tflops N]')
  }
  let base: HardwareSpec | undefined
  let source = 'flags'
  if (flags.hardware !== undefined) {
    const preset = findHardwarePreset(String(flags.hardware))
    if (!preset) {
      throw invalid(`--hardware: "${String(flags.hardware)}" is not a known preset; accepted values: ${HARDWARE_PRESETS.map((p) => p.id).join(', ')}`)
    }
    const { aliases: _a, notes: _n, ...spec } = preset
    base = spec
    source = `preset ${preset.id}`
  }
  const memBwGbs = (flags.memBwGbs as number | undefined) ?? base?.memBwGbs
  const fp16Tflops = (flags.tflops as number | undefined) ?? base?.fp16Tflops
  if (memBwGbs === undefined) assumptions.push(`--mem-bw-gbs not given: ${HARDWARE_DEFAULTS.memBwGbs} GB/s (the feature vector's unset default)`)
  if (fp16Tflops === undefined) assumptions.push(`--tflops not given: ${HARDWARE_DEFAULTS.tflops} TFLOPS (the feature vector's unset default)`)
  const spec: Record<string, unknown> = {
    ...(base ?? { name: 'custom hardware (from flags)' }),
    memBwGbs: memBwGbs ?? HARDWARE_DEFAULTS.memBwGbs,
    fp16Tflops: fp16Tflops ?? HARDWARE_DEFAULTS.tflops,
  }
  if (flags.smCount !== undefined) spec.smCount = flags.smCount
  if (flags.l2Mb !== undefined) spec.l2CacheMb = flags.l2Mb
  if (flags.unifiedMemory !== undefined) spec.unifiedMemory = flags.unifiedMemory
  if (base && (flags.memBwGbs !== undefined || flags.tflops !== undefined || flags.smCount !== undefined || flags.l2Mb !== undefined)) source += ' with flag overrides'
  const checked = validateWith(HardwareSpecSchema, spec)
  if (!checked.ok) throw invalid(`invalid hardware: ${checked.errors.join('; ')}`)
  return { hardware: checked.value, source, assumptions }
}

/** Resolves the workload flags into core's Workload. */
export function resolveTargetWorkload(flags: TargetFields): Workload & { kernel?: KernelTypeName } {
  const prefill = flags.prefill === true
  const seq = flags.seqLen as number | undefined
  const prompt = (flags.promptTokens as number | undefined) ?? (prefill && seq ? seq : 512)
  const w: Workload & { kernel?: KernelTypeName } = {
    batch: (flags.batch as number | undefined) ?? 1,
    phase: prefill ? 'prefill' : 'decode',
    promptTokens: prompt,
    generatedTokens: 128,
    cudaGraphs: flags.cudaGraphs === true,
  }
  // One convention for every command: an unset decode context is 0 tokens (roofline, predict,
  // recommend and the regressor already read it so; features used to fall back to 512).
  if (!prefill) w.contextLength = seq ?? 0
  if (flags.kernel !== undefined) w.kernel = flags.kernel as KernelTypeName
  return w
}

export const UNSET_DECODE_CONTEXT_ASSUMPTION =
  'decode context unset: 0 tokens already in each KV cache (the first generated token); pass --seq-len N for a longer context'

/** What resolveWorkload assumed for flags left unset, for a command's `assumptions`. */
export function workloadAssumptions(flags: TargetFields): string[] {
  return flags.prefill !== true && flags.seqLen === undefined ? [UNSET_DECODE_CONTEXT_ASSUMPTION] : []
}
