/**
 * GGUF metadata → ModelSpec. Parsing goes through @huggingface/gguf with an in-memory `fetch`
 * that serves byte ranges from a Blob or a reader, so the same code runs on Node, Bun, Deno and
 * in browsers; the adapter (`@kerneltune/features/node`) only supplies the file bytes.
 */
import { gguf, GGMLFileQuantizationType, GGMLQuantizationType, type GGUFParseOutput } from '@huggingface/gguf'
import { KerneltuneError, normalizeQuantName, type ModelSpec, type QuantName } from '@kerneltune/core'

/** Random access to the bytes of a GGUF file. */
export interface ByteSource {
  readonly size: number
  read(start: number, endExclusive: number): Promise<Uint8Array>
}

export interface GgufTensorSummary {
  /** GGML tensor type name as GGUF spells it (`Q4_K`, `F32`...). */
  type: string
  tensors: number
  elements: number
}

export interface ModelFromGguf {
  model: ModelSpec
  /** `general.file_type` as llama.cpp names it (`Q4_K_M`), when present. */
  fileType?: string
  /** Element counts per tensor type (what the file really stores). */
  tensorTypes: GgufTensorSummary[]
  /** Total elements of all tensors (the parameter count). */
  parameterCount: number
  metadata: Record<string, unknown>
  assumptions: string[]
}

function toSource(input: Uint8Array | Blob | ByteSource): ByteSource {
  if (input instanceof Uint8Array) {
    return { size: input.byteLength, read: async (s, e) => input.subarray(s, Math.min(e, input.byteLength)) }
  }
  if (typeof Blob !== 'undefined' && input instanceof Blob) {
    return { size: input.size, read: async (s, e) => new Uint8Array(await input.slice(s, e).arrayBuffer()) }
  }
  return input as ByteSource
}

/** Parses a GGUF header (metadata and tensor infos) from bytes, a Blob or a ByteSource. */
export async function parseGguf(input: Uint8Array | Blob | ByteSource): Promise<GGUFParseOutput> {
  const src = toSource(input)
  const rangeFetch = (async (_url: unknown, init?: { headers?: Record<string, string> }) => {
    const m = /bytes=(\d+)-(\d+)/.exec(init?.headers?.Range ?? '')
    const start = m ? Number(m[1]) : 0
    const end = Math.min(m ? Number(m[2]) + 1 : src.size, src.size)
    const body = start < end ? await src.read(start, end) : new Uint8Array(0)
    const copy = new Uint8Array(body.byteLength)
    copy.set(body)
    return new Response(copy, { status: 206, headers: { 'content-range': `bytes ${start}-${Math.max(end - 1, start)}/${src.size}` } })
  }) as unknown as typeof fetch
  try {
    return await gguf('https://kerneltune.invalid/model.gguf', { fetch: rangeFetch })
  } catch (err) {
    throw new KerneltuneError('INVALID_FORMAT', `not a readable GGUF file: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }
}

const asNumber = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined

/** The ggml type name for a numeric tensor type. */
export function ggmlTypeName(type: number): string {
  return (GGMLQuantizationType as unknown as Record<number, string>)[type] ?? `type_${type}`
}

/** llama.cpp's name for a `general.file_type` value. */
export function ggufFileTypeName(fileType: number): string | undefined {
  return (GGMLFileQuantizationType as unknown as Record<number, string>)[fileType]
}

/** ModelSpec from parsed GGUF metadata (and tensor infos, for the parameter count). */
export function fromGgufMetadata(parsed: Pick<GGUFParseOutput, 'metadata' | 'tensorInfos'>): ModelFromGguf {
  const md = parsed.metadata as unknown as Record<string, unknown>
  const assumptions: string[] = []
  const arch = typeof md['general.architecture'] === 'string' ? (md['general.architecture'] as string) : undefined
  if (!arch) throw new KerneltuneError('INVALID_FORMAT', 'GGUF file has no general.architecture')
  const key = (k: string) => asNumber(md[`${arch}.${k}`])
  const types = new Map<string, GgufTensorSummary>()
  let elements = 0
  let expertElements = 0
  for (const t of parsed.tensorInfos) {
    const n = t.shape.reduce((a, d) => a * Number(d), 1)
    elements += n
    if (/_exps\b/.test(t.name)) expertElements += n
    const name = ggmlTypeName(t.dtype)
    const s = types.get(name) ?? { type: name, tensors: 0, elements: 0 }
    s.tensors++
    s.elements += n
    types.set(name, s)
  }
  const tensorTypes = [...types.values()].sort((a, b) => b.elements - a.elements)
  const fileTypeNum = asNumber(md['general.file_type'])
  const fileType = fileTypeNum === undefined ? undefined : ggufFileTypeName(fileTypeNum)
  let quant: QuantName | undefined = fileType ? normalizeQuantName(fileType.replace(/^MOSTLY_/, '')) : undefined
  if (!quant) {
    // No (or an unknown) file type: name the file by the type that holds most of its weights.
    quant = tensorTypes.map((t) => normalizeQuantName(t.type)).find((q) => q !== undefined)
    if (quant) assumptions.push(`quantization taken from the dominant tensor type (${quant})`)
  }
  if (!quant) {
    quant = 'F16'
    assumptions.push('no file type and no known tensor type: quantization taken as F16')
  }
  const hidden = key('embedding_length')
  const heads = key('attention.head_count')
  const tokens = md['tokenizer.ggml.tokens']
  const vocab = key('vocab_size') ?? (Array.isArray(tokens) ? tokens.length : undefined)
  const experts = key('expert_count')
  const used = key('expert_used_count')
  const model: ModelSpec = {
    architecture: arch,
    paramsB: elements > 0 ? elements / 1e9 : NaN,
    quant,
  }
  if (typeof md['general.name'] === 'string') model.name = md['general.name'] as string
  const set = <K extends keyof ModelSpec>(k: K, v: ModelSpec[K] | undefined) => {
    if (v !== undefined && (typeof v !== 'number' || (Number.isFinite(v) && v > 0))) model[k] = v
  }
  set('hiddenDim', hidden)
  set('intermediateDim', key('feed_forward_length'))
  set('numLayers', key('block_count'))
  set('numHeads', heads)
  set('numKvHeads', key('attention.head_count_kv') ?? heads)
  set('headDim', key('attention.key_length') ?? (hidden && heads ? hidden / heads : undefined))
  set('vocabSize', vocab)
  set('contextLength', key('context_length'))
  if (experts !== undefined && experts > 1) {
    set('numExperts', experts)
    set('expertsPerToken', used)
    if (used !== undefined) model.activeParamsB = (elements - expertElements * (1 - used / experts)) / 1e9
  }
  if (!(elements > 0)) throw new KerneltuneError('INVALID_FORMAT', 'GGUF file lists no tensors, so its size is unknown')
  const metadata: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(md)) {
    if (Array.isArray(v) && v.length > 16) metadata[k] = `[${v.length} values]`
    else metadata[k] = typeof v === 'bigint' ? Number(v) : v
  }
  const out: ModelFromGguf = { model, tensorTypes, parameterCount: elements, metadata, assumptions }
  if (fileType) out.fileType = fileType
  return out
}

/** Parse and convert in one step. */
export async function fromGgufBytes(input: Uint8Array | Blob | ByteSource): Promise<ModelFromGguf> {
  return fromGgufMetadata(await parseGguf(input))
}
