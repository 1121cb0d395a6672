/**
 * Model, hardware and workload flags shared by the commands that evaluate a configuration
 * (features, roofline, predict, recommend): the flag specs, and their resolution into core's
 * ModelSpec / HardwareSpec / Workload. A model comes from exactly one of --model, --model-config,
 * --gguf or --params-b, then shape flags override; hardware from --hardware and/or the
 * per-number flags. Every problem is a usage error that names the flag and the accepted values.
 */
import { readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import {
  HardwareSpecSchema,
  KERNEL_TYPES,
  ModelSpecSchema,
  QUANT_TYPES,
  normalizeQuantName,
  validateWith,
  type HardwareSpec,
  type KernelTypeName,
  type ModelSpec,
  type QuantName,
  type Workload,
} from '@kerneltune/core'
import { HARDWARE_DEFAULTS, HARDWARE_PRESETS, MODEL_PRESETS, findHardwarePreset, fromModelConfig, modelSpecFromPreset } from '@kerneltune/features'
import { fromGguf } from '@kerneltune/features/node'
import { weightBytesOf } from '@kerneltune/roofline'
import type { GgufHeader } from '@kerneltune/gguf'
import { usageError, type FlagSpec } from '../../cli/args.ts'
import type { Io } from '../../cli/command.ts'
import { checkedGgufHeader } from './gguf-file.ts'

export const MODEL_FLAGS = [
  { name: 'model', type: 'string', valueName: 'PRESET', choices: MODEL_PRESETS.map((m) => m.id), description: 'A model preset (shapes from its published config.json).' },
  { name: 'model-config', type: 'string', valueName: 'FILE', description: 'A Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2/3, Gemma, Phi).' },
  { name: 'gguf', type: 'string', valueName: 'FILE', description: 'A GGUF file: its metadata gives shapes, parameter count and quantization.' },
  { name: 'params-b', type: 'number', valueName: 'N', min: 0.001, description: 'Model size in billions of parameters (when no preset or file is given).' },
  { name: 'active-params-b', type: 'number', valueName: 'N', min: 0.001, description: 'Parameters used per token, in billions (mixture-of-experts).' },
  { name: 'quant', type: 'string', valueName: 'Q', description: `Weight format as GGUF spells it (${QUANT_TYPES.slice(0, 17).join(', ')}, IQ*...); upstream spellings such as Q4K and file types such as Q4_K_M are accepted. Default: Q4_K for presets and --params-b, the file's own for --gguf/--model-config.` },
  { name: 'hidden-dim', type: 'integer', valueName: 'N', min: 1, description: 'Hidden size.' },
  { name: 'layers', type: 'integer', valueName: 'N', min: 1, description: 'Number of transformer layers.' },
  { name: 'heads', type: 'integer', valueName: 'N', min: 1, description: 'Attention heads.' },
  { name: 'kv-heads', type: 'integer', valueName: 'N', min: 1, description: 'Key/value heads (GQA).' },
  { name: 'head-dim', type: 'integer', valueName: 'N', min: 1, description: 'Head dimension (default hidden-dim / heads).' },
  { name: 'vocab', type: 'integer', valueName: 'N', min: 1, description: 'Vocabulary size.' },
] as const satisfies readonly FlagSpec[]

export const HARDWARE_FLAGS = [
  { name: 'hardware', type: 'string', valueName: 'NAME', description: 'A hardware preset id or label (see `kerneltune hardware list`).' },
  { name: 'mem-bw-gbs', type: 'number', valueName: 'GBS', min: 0.001, description: 'Memory bandwidth in GB/s (overrides the preset).' },
  { name: 'tflops', type: 'number', valueName: 'N', min: 0.001, description: 'Dense FP16/BF16 TFLOPS (overrides the preset).' },
  { name: 'sm-count', type: 'integer', valueName: 'N', min: 1, description: 'SMs / compute units / GPU cores (overrides the preset).' },
  { name: 'l2-mb', type: 'number', valueName: 'MB', min: 0.001, description: 'Last-level cache in MB (overrides the preset).' },
  { name: 'unified-memory', type: 'boolean', description: 'Memory shared by CPU and GPU (sets is_zero_copy).' },
] as const satisfies readonly FlagSpec[]

export const WORKLOAD_FLAGS = [
  { name: 'batch', type: 'integer', valueName: 'N', min: 1, max: 65536, default: 1, description: 'Concurrent sequences.' },
  { name: 'seq-len', type: 'integer', valueName: 'N', min: 0, description: 'Decode: tokens already in each KV cache. Prefill: prompt length.' },
  { name: 'prompt-tokens', type: 'integer', valueName: 'N', min: 1, description: 'Prompt tokens per sequence for prefill (default: --seq-len, else 512).' },
  { name: 'prefill', type: 'boolean', description: 'Describe the prefill phase instead of decode.' },
  { name: 'cuda-graphs', type: 'boolean', description: 'CUDA graphs on.' },
  { name: 'kernel', type: 'string', valueName: 'KERNEL', choices: [...KERNEL_TYPES], description: 'Kernel for the kernel one-hot (unset leaves it all zero).' },
] as const satisfies readonly FlagSpec[]

type Flags = Record<string, unknown>

export interface ResolvedModel {
  model: ModelSpec
  /** Where the model came from: `preset llama-3-8b`, `config.json FILE`, `gguf FILE`, `flags`. */
  source: string
  /** Exact weight bytes when known (GGUF: from its tensor types). */
  weightBytes?: number
  assumptions: string[]
}

export interface ResolvedHardware {
  hardware: HardwareSpec
  source: string
  assumptions: string[]
}

/** Reads --quant (any spelling) or fails naming the flag and the accepted names. */
export function parseQuantFlag(raw: unknown): QuantName | undefined {
  if (raw === undefined) return undefined
  const q = normalizeQuantName(String(raw))
  if (!q) throw usageError(`--quant: "${String(raw)}" is not accepted; accepted values: ${QUANT_TYPES.join(', ')} (also Q4K-style and Q4_K_M-style spellings)`)
  return q
}

/**
 * The absolute path, size and header of the GGUF a command was given with --gguf, after checking
 * it exists, parses, and holds every tensor its header lists: a missing flag or file, or a
 * truncated one, is a usage error that says what is wrong and how to fix it.
 */
export async function requireGgufFile(io: Io, file: string | undefined, purpose: string): Promise<{ path: string; bytes: number; header: GgufHeader }> {
  if (!file) throw usageError(`--gguf FILE is required: the model to ${purpose} (make one with \`kerneltune model synth\`)`)
  const path = resolve(io.cwd, file)
  const info = await stat(path).catch(() => undefined)
  if (!info?.isFile()) throw usageError(`${path} is not a file; pass an existing GGUF with --gguf`)
  return { path, bytes: info.size, header: await checkedGgufHeader(path, info.size) }
}

/** Reads and parses a JSON file named by a flag; a usage error names the flag and the problem. */
export async function readJsonFile(io: Io, file: string, flag: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8')
  } catch (err) {
    throw usageError(`--${flag}: cannot read "${file}": ${(err as Error).message}`)
  }
  try {
    return JSON.parse(text)
  } catch (err) {
    throw usageError(`--${flag}: "${file}" is not valid JSON: ${(err as Error).message}`)
  }
}

/** Resolves the model flags. `required` false returns undefined when no model flag is given. */
export async function resolveModel(flags: Flags, io: Io, required = true): Promise<ResolvedModel | undefined> {
  const sources = (['model', 'modelConfig', 'gguf', 'paramsB'] as const).filter((k) => flags[k] !== undefined)
  if (sources.length > 1) throw usageError('give one of --model, --model-config, --gguf or --params-b, not several')
  if (sources.length === 0) {
    if (!required) return undefined
    throw usageError(`a model is needed: --model PRESET (${MODEL_PRESETS.map((m) => m.id).join(', ')}), --model-config FILE, --gguf FILE, or --params-b N with --quant`)
  }
  const quant = parseQuantFlag(flags.quant)
  const assumptions: string[] = []
  let out: ResolvedModel
  if (flags.model !== undefined) {
    out = { model: modelSpecFromPreset(String(flags.model), quant ?? 'Q4_K'), source: `preset ${String(flags.model)}`, assumptions }
  } else if (flags.modelConfig !== undefined) {
    const r = fromModelConfig(await readJsonFile(io, String(flags.modelConfig), 'model-config'), quant ? { quant } : {})
    out = { model: r.model, source: `config.json ${String(flags.modelConfig)}`, assumptions: [...r.assumptions] }
  } else if (flags.gguf !== undefined) {
    const file = resolve(io.cwd, String(flags.gguf))
    let r
    try {
      r = await fromGguf(file)
    } catch (err) {
      throw usageError(`--gguf: cannot read "${String(flags.gguf)}": ${(err as Error).message}`)
    }
    const model = quant ? { ...r.model, quant } : r.model
    out = { model, source: `gguf ${String(flags.gguf)}${r.fileType ? ` (${r.fileType})` : ''}`, assumptions: [...r.assumptions] }
    if (!quant) out.weightBytes = weightBytesOf(r.tensorTypes)
  } else {
    out = { model: { paramsB: Number(flags.paramsB), quant: quant ?? 'Q4_K' }, source: 'flags', assumptions }
    if (!quant) assumptions.push('--quant not given: Q4_K')
  }
  const m: ModelSpec = { ...out.model }
  const set = (key: keyof ModelSpec, flag: string) => {
    if (flags[flag] !== undefined) (m as Record<string, unknown>)[key] = flags[flag]
  }
  set('activeParamsB', 'activeParamsB')
  set('hiddenDim', 'hiddenDim')
  set('numLayers', 'layers')
  set('numHeads', 'heads')
  set('numKvHeads', 'kvHeads')
  set('headDim', 'headDim')
  set('vocabSize', 'vocab')
  const checked = validateWith(ModelSpecSchema, m)
  if (!checked.ok) throw usageError(`invalid model: ${checked.errors.join('; ')}`)
  out.model = { ...m, quant: checked.value.quant }
  return out
}

/**
 * Resolves the hardware flags. `required` false returns undefined when none is given; missing
 * numbers without a preset take the feature vector's unset defaults (1000 GB/s, 100 TFLOPS),
 * recorded in `assumptions`.
 */
export function resolveHardware(flags: Flags, required = true): ResolvedHardware | undefined {
  const assumptions: string[] = []
  const any = ['hardware', 'memBwGbs', 'tflops', 'smCount', 'l2Mb', 'unifiedMemory'].some((k) => flags[k] !== undefined)
  if (!any) {
    if (!required) return undefined
    throw usageError('hardware is needed: --hardware NAME (see `kerneltune hardware list`) or --mem-bw-gbs GBS [--tflops N]')
  }
  let base: HardwareSpec | undefined
  let source = 'flags'
  if (flags.hardware !== undefined) {
    const preset = findHardwarePreset(String(flags.hardware))
    if (!preset) {
      throw usageError(`--hardware: "${String(flags.hardware)}" is not a known preset; accepted values: ${HARDWARE_PRESETS.map((p) => p.id).join(', ')}`)
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
  if (!checked.ok) throw usageError(`invalid hardware: ${checked.errors.join('; ')}`)
  return { hardware: checked.value, source, assumptions }
}

/** Resolves the workload flags into core's Workload. */
export function resolveWorkload(flags: Flags): Workload & { kernel?: KernelTypeName } {
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
export function workloadAssumptions(flags: Flags): string[] {
  return flags.prefill !== true && flags.seqLen === undefined ? [UNSET_DECODE_CONTEXT_ASSUMPTION] : []
}
