/**
 * Feeding an ONNX decoder through onnxruntime-node: finds its inputs and outputs by the names
 * exporters use (past_key_values.{i}.key/value → present.{i}.key/value), builds the prefill and
 * decode feeds, and compares two sessions' logits (the quality gate).
 */
import { KerneltuneError } from '@kerneltune/core'

export type Ort = typeof import('onnxruntime-node')
type Session = Awaited<ReturnType<Ort['InferenceSession']['create']>>
type Tensor = InstanceType<Ort['Tensor']>
type Feeds = Record<string, Tensor>
type Outputs = Record<string, Tensor>

export interface DecoderIo {
  readonly layers: number
  readonly kvHeads: number
  readonly headDim: number
  readonly vocab: number
  readonly logits: string
  prefill(ort: Ort, tokens: readonly number[]): Feeds
  decode(ort: Ort, token: number, length: number, previous: Outputs): Feeds
}

const PAST = /^past_key_values\.(\d+)\.key$/

export function decoderIo(session: Session): DecoderIo {
  const names = session.inputNames
  const missing = ['input_ids', 'attention_mask'].filter((n) => !names.includes(n))
  const layers = names.filter((n) => PAST.test(n)).length
  if (missing.length > 0 || layers === 0 || !session.outputNames.includes('logits')) {
    throw new KerneltuneError('INVALID_INPUT', `the model is not a decoder with a KV cache this backend can feed: it needs inputs input_ids, attention_mask and past_key_values.{i}.key/value and outputs logits and present.{i}.key/value; it has inputs ${names.join(', ')} and outputs ${session.outputNames.join(', ')}`)
  }
  const meta = session.inputMetadata.find((m) => m.name === 'past_key_values.0.key')
  const shape = meta && meta.isTensor ? meta.shape : []
  const logitsMeta = session.outputMetadata.find((m) => m.name === 'logits')
  const vocab = logitsMeta && logitsMeta.isTensor ? logitsMeta.shape[2] : undefined
  const [kvHeads, headDim] = [shape[1], shape[3]]
  if (typeof kvHeads !== 'number' || typeof headDim !== 'number' || typeof vocab !== 'number') {
    throw new KerneltuneError('INVALID_INPUT', `the model's past_key_values.0.key must have fixed KV heads and head size ([batch, kv heads, past, head size]) and its logits a fixed vocabulary; got ${JSON.stringify(shape)} and ${JSON.stringify(logitsMeta)}`)
  }
  const range = Array.from({ length: layers }, (_, i) => i)
  const ids = (ort: Ort, tokens: readonly number[]) => new ort.Tensor('int64', BigInt64Array.from(tokens.map(BigInt)), [1, tokens.length])
  const mask = (ort: Ort, n: number) => new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [1, n])
  return {
    layers, kvHeads, headDim, vocab, logits: 'logits',
    prefill(ort, tokens) {
      const feeds: Feeds = { input_ids: ids(ort, tokens), attention_mask: mask(ort, tokens.length) }
      for (const i of range) {
        for (const kind of ['key', 'value']) feeds[`past_key_values.${i}.${kind}`] = new ort.Tensor('float32', new Float32Array(0), [1, kvHeads, 0, headDim])
      }
      return feeds
    },
    decode(ort, token, length, previous) {
      const feeds: Feeds = { input_ids: ids(ort, [token]), attention_mask: mask(ort, length) }
      for (const i of range) {
        for (const kind of ['key', 'value']) feeds[`past_key_values.${i}.${kind}`] = previous[`present.${i}.${kind}`]!
      }
      return feeds
    },
  }
}

/** The last position's logits. */
export function lastLogits(logits: Tensor): Float32Array {
  const vocab = logits.dims[logits.dims.length - 1]!
  const data = logits.data as Float32Array
  return data.subarray(data.length - vocab)
}

/** The greedy next token: the index of the largest logit at the last position. */
export function argmaxLast(logits: Tensor): number {
  const row = lastLogits(logits)
  let best = 0
  for (let i = 1; i < row.length; i++) if (row[i]! > row[best]!) best = i
  return best
}

export interface LogitsError {
  /** Largest absolute difference over the prompt's logits and one decode step's. */
  readonly maxAbs: number
  /** maxAbs over the largest absolute reference logit. */
  readonly maxRel: number
  readonly scale: number
  /** Whether both sessions pick the same greedy token after the prompt and after the step. */
  readonly sameToken: boolean
}

/** Runs both sessions on the prompt and one greedy decode step and compares their logits. */
export async function compareLogits(ort: Ort, session: Session, reference: Session, io: DecoderIo, prompt: readonly number[]): Promise<LogitsError> {
  let maxAbs = 0
  let scale = 0
  let sameToken = true
  const compare = (a: Float32Array, b: Float32Array) => {
    for (let i = 0; i < b.length; i++) {
      maxAbs = Math.max(maxAbs, Math.abs(a[i]! - b[i]!))
      scale = Math.max(scale, Math.abs(b[i]!))
    }
  }
  const out = await session.run(io.prefill(ort, prompt))
  const ref = await reference.run(io.prefill(ort, prompt))
  compare(out[io.logits]!.data as Float32Array, ref[io.logits]!.data as Float32Array)
  // Both step from the reference's token, so the second comparison sees the same input.
  const token = argmaxLast(ref[io.logits]!)
  sameToken &&= argmaxLast(out[io.logits]!) === token
  const step = await session.run(io.decode(ort, token, prompt.length + 1, out))
  const refStep = await reference.run(io.decode(ort, token, prompt.length + 1, ref))
  compare(lastLogits(step[io.logits]!), lastLogits(refStep[io.logits]!))
  sameToken &&= argmaxLast(step[io.logits]!) === argmaxLast(refStep[io.logits]!)
  return { maxAbs, maxRel: scale === 0 ? 0 : maxAbs / scale, scale, sameToken }
}
