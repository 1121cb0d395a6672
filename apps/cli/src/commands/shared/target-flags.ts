/**
 * Model, hardware and workload flags shared by the commands that evaluate a configuration
 * (features, roofline, predict, recommend): the flag specs, read into core's ModelSpec /
 * HardwareSpec / Workload by compose's target resolution (a model from exactly one of --model,
 * --model-config, --gguf or --params-b, then shape flags; hardware from --hardware and/or the
 * per-number flags). Every problem is a usage error that names the flag and the accepted values.
 */
import { KERNEL_TYPES, QUANT_TYPES } from '@kerneltune/core'
import { readJsonFile as readJson, requireGgufFile as requireGguf, resolveTargetHardware, resolveTargetModel, type ResolvedModel } from '@kerneltune/compose/node'
import { MODEL_PRESETS } from '@kerneltune/features'
import type { FlagSpec } from '../../cli/args.ts'
import type { Io } from '../../cli/command.ts'

export { parseQuantFlag, resolveTargetWorkload as resolveWorkload, UNSET_DECODE_CONTEXT_ASSUMPTION, workloadAssumptions, type ResolvedHardware, type ResolvedModel } from '@kerneltune/compose/node'

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

/** The checked GGUF --gguf names (exists, parses, holds every tensor its header lists), with its absolute path and size. */
export const requireGgufFile = (io: Io, file: string | undefined, purpose: string) => requireGguf(io.cwd, file, purpose)

/** Reads and parses a JSON file named by a flag; a usage error names the flag and the problem. */
export const readJsonFile = (io: Io, file: string, flag: string): Promise<unknown> => readJson(io.cwd, file, flag)

/** Resolves the model flags. `required` false returns undefined when no model flag is given. */
export const resolveModel = (flags: Flags, io: Io, required = true): Promise<ResolvedModel | undefined> => resolveTargetModel(flags, io.cwd, required)

/** Resolves the hardware flags; `required` false returns undefined when none is given. */
export const resolveHardware = (flags: Flags, required = true) => resolveTargetHardware(flags, required)
