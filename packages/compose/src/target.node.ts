/**
 * The model of a target, from exactly one of a preset (`model`), a Hugging Face config.json
 * (`modelConfig`), a GGUF file (`gguf`) or a size (`paramsB`), then shape fields override; and the
 * GGUF a command was given, checked before anything loads it: its header must parse and every
 * tensor it lists must lie inside the file (a truncated file, an interrupted download or copy,
 * has a whole header, and without the second check an engine fails much later with only
 * "Failed to load model"). Every problem is INVALID_INPUT naming the flag.
 */
import { open, readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { KerneltuneError, ModelSpecSchema, validateWith, type ModelSpec } from '@kerneltune/core'
import { MODEL_PRESETS, fromModelConfig, modelSpecFromPreset } from '@kerneltune/features'
import { fromGguf } from '@kerneltune/features/node'
import { checkGgufTensorsInFile, readGgufHeader, type GgufHeader } from '@kerneltune/gguf'
import { weightBytesOf } from '@kerneltune/roofline'
import { parseQuantFlag, type TargetFields } from './target.ts'

const invalid = (message: string, details?: unknown) => new KerneltuneError('INVALID_INPUT', message, { details })

export interface ResolvedModel {
  model: ModelSpec
  /** Where the model came from: `preset llama-3-8b`, `config.json FILE`, `gguf FILE`, `flags`. */
  source: string
  /** Exact weight bytes when known (GGUF: from its tensor types). */
  weightBytes?: number
  assumptions: string[]
}

/** Reads just the GGUF header, growing the read until it fits. */
export async function readGgufFileHeader(path: string): Promise<GgufHeader> {
  const handle = await open(path, 'r')
  try {
    for (let size = 1 << 20; ; size *= 4) {
      const buf = new Uint8Array(size)
      const { bytesRead } = await handle.read(buf, 0, size, 0)
      try {
        return readGgufHeader(buf.subarray(0, bytesRead))
      } catch (e) {
        if (bytesRead < size || size >= 1 << 28 || !(e instanceof KerneltuneError) || e.code !== 'INVALID_FORMAT' || !/longer than/.test(e.message)) throw e
      }
    }
  } finally {
    await handle.close()
  }
}

/**
 * The header of `path` (`bytes` long), checked: a file that is not a GGUF, or one whose tensors
 * run past its end, is a usage error (exit 2) that names the file and the first missing tensor.
 */
export async function checkedGgufHeader(path: string, bytes: number): Promise<GgufHeader> {
  let header: GgufHeader
  try {
    header = await readGgufFileHeader(path)
  } catch (e) {
    if (e instanceof KerneltuneError && e.code === 'INVALID_FORMAT') {
      throw invalid(`--gguf ${path}: ${e.message}${/longer than/.test(e.message) ? ' (the file ends inside its header: it is truncated or not a GGUF)' : ''}`)
    }
    throw e
  }
  try {
    checkGgufTensorsInFile(header, bytes, path)
  } catch (e) {
    if (e instanceof KerneltuneError) throw invalid(`--gguf: ${e.message}`, e.details)
    throw e
  }
  return header
}

/**
 * The absolute path, size and header of the GGUF a command was given with --gguf, after checking
 * it exists, parses, and holds every tensor its header lists: a missing flag or file, or a
 * truncated one, is a usage error that says what is wrong and how to fix it.
 */
export async function requireGgufFile(cwd: string, file: string | undefined, purpose: string): Promise<{ path: string; bytes: number; header: GgufHeader }> {
  if (!file) throw invalid(`--gguf FILE is required: the model to ${purpose} (make one with \`kerneltune model synth\`)`)
  const path = resolve(cwd, file)
  const info = await stat(path).catch(() => undefined)
  if (!info?.isFile()) throw invalid(`${path} is not a file; pass an existing GGUF with --gguf`)
  return { path, bytes: info.size, header: await checkedGgufHeader(path, info.size) }
}

/** Reads and parses a JSON file named by a flag; a usage error names the flag and the problem. */
export async function readJsonFile(cwd: string, file: string, flag: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(resolve(cwd, file), 'utf8')
  } catch (err) {
    throw invalid(`--${flag}: cannot read "${file}": ${(err as Error).message}`)
  }
  try {
    return JSON.parse(text)
  } catch (err) {
    throw invalid(`--${flag}: "${file}" is not valid JSON: ${(err as Error).message}`)
  }
}

/** Resolves the model flags. `required` false returns undefined when no model flag is given. */
export async function resolveTargetModel(flags: TargetFields, cwd: string, required = true): Promise<ResolvedModel | undefined> {
  const sources = (['model', 'modelConfig', 'gguf', 'paramsB'] as const).filter((k) => flags[k] !== undefined)
  if (sources.length > 1) throw invalid('give one of --model, --model-config, --gguf or --params-b, not several')
  if (sources.length === 0) {
    if (!required) return undefined
    throw invalid(`a model is needed: --model PRESET (${MODEL_PRESETS.map((m) => m.id).join(', ')}), --model-config FILE, --gguf FILE, or --params-b N with --quant`)
  }
  const quant = parseQuantFlag(flags.quant)
  const assumptions: string[] = []
  let out: ResolvedModel
  if (flags.model !== undefined) {
    out = { model: modelSpecFromPreset(String(flags.model), quant ?? 'Q4_K'), source: `preset ${String(flags.model)}`, assumptions }
  } else if (flags.modelConfig !== undefined) {
    const r = fromModelConfig(await readJsonFile(cwd, String(flags.modelConfig), 'model-config'), quant ? { quant } : {})
    out = { model: r.model, source: `config.json ${String(flags.modelConfig)}`, assumptions: [...r.assumptions] }
  } else if (flags.gguf !== undefined) {
    const file = resolve(cwd, String(flags.gguf))
    let r
    try {
      r = await fromGguf(file)
    } catch (err) {
      throw invalid(`--gguf: cannot read "${String(flags.gguf)}": ${(err as Error).message}`)
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
  if (!checked.ok) throw invalid(`invalid model: ${checked.errors.join('; ')}`)
  out.model = { ...m, quant: checked.value.quant }
  return out
}

