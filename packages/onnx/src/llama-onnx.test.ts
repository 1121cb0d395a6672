import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as ort from 'onnxruntime-node'
import { isKerneltuneError } from '@kerneltune/core'
import { chooseLlamaShape } from '@kerneltune/gguf'
import { synthOnnxLlama, type SynthOnnxLlama } from './llama-onnx.ts'
import { writeOnnxFile } from './adapters/write.node.ts'
import { onnx } from './proto.ts'

// hidden 256 gives 8 query heads over 2 KV heads (grouped-query attention) in two layers of
// about 0.7M parameters each: about 1.6M parameters, 6.4 MB in fp32, 0.9 MB in 4-bit.
const SHAPE = { params: 1.6e6, hidden: 256, layers: 2, vocabSize: 320, contextLength: 128 } as const
const dir = mkdtempSync(join(tmpdir(), 'onnx-llama-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Feeds = Record<string, ort.Tensor>
const ids = (tokens: number[]) => new ort.Tensor('int64', BigInt64Array.from(tokens.map(BigInt)), [1, tokens.length])
const mask = (n: number) => new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [1, n])

function prefillFeeds(m: SynthOnnxLlama, tokens: number[]): Feeds {
  const feeds: Feeds = { input_ids: ids(tokens), attention_mask: mask(tokens.length) }
  const empty = () => new ort.Tensor('float32', new Float32Array(0), [1, m.shape.kvHeads, 0, m.shape.headDim])
  for (const [k, v] of m.io.past) Object.assign(feeds, { [k]: empty(), [v]: empty() })
  return feeds
}

function lastRow(logits: ort.Tensor): Float32Array {
  const vocab = logits.dims[2]!
  const data = logits.data as Float32Array
  return data.slice(data.length - vocab)
}

const maxAbsDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0)

describe('synthOnnxLlama', () => {
  it('should use the GGUF package\'s llama shape, with grouped-query attention at this width', () => {
    const m = synthOnnxLlama({ ...SHAPE, weights: 'fp32' })
    expect(m.shape).toEqual(chooseLlamaShape(SHAPE))
    expect(m.shape.heads / m.shape.kvHeads).toBe(4)
    expect(m.io.past).toHaveLength(2)
  })

  it('should write the same bytes for the same seed and different ones for another seed', () => {
    const a = synthOnnxLlama({ ...SHAPE, weights: 'q4', seed: 4 }).bytes
    // A byte loop: vitest's deep equality takes seconds over a megabyte.
    const same = (b: Uint8Array) => b.length === a.length && b.every((x, i) => x === a[i])
    expect(same(synthOnnxLlama({ ...SHAPE, weights: 'q4', seed: 4 }).bytes)).toBe(true)
    expect(same(synthOnnxLlama({ ...SHAPE, weights: 'q4', seed: 5 }).bytes)).toBe(false)
  })

  it('should hold weights of the size their type says', () => {
    const size = (w: 'fp32' | 'fp16' | 'q4') => synthOnnxLlama({ ...SHAPE, weights: w }).bytes.length
    const params = synthOnnxLlama(SHAPE).paramCount
    // Weights dominate the file: 4, 2 and about 0.56 bytes (4 bits plus a fp32 scale per 32) a parameter.
    expect(size('fp32') / params).toBeGreaterThan(3.9)
    expect(size('fp32') / params).toBeLessThan(4.2)
    expect(size('fp16') / params).toBeLessThan(2.2)
    expect(size('q4')).toBeLessThan(size('fp16'))
  })

  it('should refuse an unknown weight type', () => {
    let err: unknown
    try { synthOnnxLlama({ ...SHAPE, weights: 'int8' as never }) } catch (e) { err = e }
    expect(isKerneltuneError(err) && err.code).toBe('INVALID_INPUT')
  })

  for (const weights of ['fp32', 'fp16', 'q4'] as const) {
    it(`should load in ONNX Runtime (${weights}) and decode one token from its own present tensors as a full prefill would`, async () => {
      const m = synthOnnxLlama({ ...SHAPE, weights, seed: 7 })
      const path = join(dir, `tiny-${weights}.onnx`)
      await writeOnnxFile(path, m)
      expect(statSync(path).size).toBe(m.bytes.length)
      const session = await ort.InferenceSession.create(path, { graphOptimizationLevel: 'all', intraOpNumThreads: 1 })
      try {
        expect([...session.inputNames].sort()).toEqual(['attention_mask', 'input_ids', ...m.io.past.flat()].sort())
        const prompt = [3, 17, 250, 42, 9]
        const prefill = await session.run(prefillFeeds(m, prompt))
        expect(prefill.logits!.dims).toEqual([1, prompt.length, m.shape.vocab])
        expect(prefill[m.io.present[0]![0]]!.dims).toEqual([1, m.shape.kvHeads, prompt.length, m.shape.headDim])
        const decodeFeeds: Feeds = { input_ids: ids([77]), attention_mask: mask(prompt.length + 1) }
        m.io.past.forEach(([k, v], i) => Object.assign(decodeFeeds, { [k]: prefill[m.io.present[i]![0]], [v]: prefill[m.io.present[i]![1]] }))
        const decode = await session.run(decodeFeeds)
        expect(decode.logits!.dims).toEqual([1, 1, m.shape.vocab])
        expect(decode[m.io.present[1]![1]]!.dims).toEqual([1, m.shape.kvHeads, prompt.length + 1, m.shape.headDim])
        // The cache is wired right only if decoding token 6 from the past of 5 gives what a prefill of all 6 gives.
        const full = await session.run(prefillFeeds(m, [...prompt, 77]))
        const step = lastRow(decode.logits!)
        expect(step.every(Number.isFinite)).toBe(true)
        expect(Math.max(...step.map(Math.abs))).toBeGreaterThan(1e-3)
        expect(maxAbsDiff(step, lastRow(full.logits!))).toBeLessThan(1e-3)
      } finally {
        await session.release()
      }
    }, 60_000)
  }

  // What the doc comment of llama-onnx.ts says ORT does to these graphs, read from the optimised
  // models ORT writes: so graph optimisation has real work to do, as on exported decoders.
  it('should be rewritten by ORT\'s optimiser as exported decoders are: fp16 weights folded at basic, RMSNorm and SiLU fused at all', async () => {
    const m = synthOnnxLlama({ ...SHAPE, weights: 'fp16', seed: 8 })
    const optimised = async (level: 'disabled' | 'basic' | 'all') => {
      const path = join(dir, `optimised-${level}.onnx`)
      await (await ort.InferenceSession.create(m.bytes, { graphOptimizationLevel: level, optimizedModelFilePath: path, logSeverityLevel: 3 })).release()
      const graph = onnx.ModelProto.decode(readFileSync(path)).graph!
      const count = (pred: (x: { opType?: string | null; dataType?: number | null }) => boolean, xs: { opType?: string | null; dataType?: number | null }[]) => xs.filter(pred).length
      return {
        fp16Weights: count((t) => t.dataType === onnx.TensorProto.DataType.FLOAT16, graph.initializer!),
        norms: count((n) => n.opType === 'SimplifiedLayerNormalization', graph.node!),
        pows: count((n) => n.opType === 'Pow', graph.node!),
      }
    }
    // 2 layers x 7 linear weights, the output head and the embedding; 2 norms a layer and the final one.
    expect(await optimised('disabled')).toEqual({ fp16Weights: 16, norms: 0, pows: 5 })
    // Constant folding turns Cast(fp16 weight) into an fp32 weight; the embedding stays fp16 behind its Gather.
    expect(await optimised('basic')).toEqual({ fp16Weights: 1, norms: 0, pows: 5 })
    expect(await optimised('all')).toEqual({ fp16Weights: 1, norms: 5, pows: 0 })
  }, 60_000)
})
