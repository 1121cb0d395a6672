import { describe, expect, it } from 'vitest'
import { writeTestGguf, type GgufTestTensor } from '../testing/gguf-writer.ts'
import { fromGgufBytes, ggmlTypeName, ggufFileTypeName } from './gguf.ts'

const H = 256
const Q4K = 12
const Q6K = 14
const F32 = 0
const q4kBytes = (n: number) => (n / 256) * 144
const tensor = (name: string, dims: number[], type: number): GgufTestTensor => {
  const n = dims.reduce((a, b) => a * b, 1)
  return { name, dims, type, bytes: type === F32 ? n * 4 : type === Q6K ? (n / 256) * 210 : q4kBytes(n) }
}

function llamaFile(extra: Record<string, Parameters<typeof writeTestGguf>[0][string]> = {}, tensors?: GgufTestTensor[]) {
  return writeTestGguf(
    {
      'general.architecture': { type: 'string', value: 'llama' },
      'general.name': { type: 'string', value: 'tiny-test-llama' },
      'general.file_type': { type: 'u32', value: 15 },
      'llama.context_length': { type: 'u32', value: 4096 },
      'llama.embedding_length': { type: 'u32', value: H },
      'llama.block_count': { type: 'u32', value: 2 },
      'llama.feed_forward_length': { type: 'u32', value: 512 },
      'llama.attention.head_count': { type: 'u32', value: 4 },
      'llama.attention.head_count_kv': { type: 'u32', value: 2 },
      'tokenizer.ggml.tokens': { type: 'strings', value: Array.from({ length: 32 }, (_, i) => `t${i}`) },
      ...extra,
    },
    tensors ?? [
      tensor('token_embd.weight', [H, 32], Q4K),
      tensor('blk.0.attn_q.weight', [H, H], Q4K),
      tensor('blk.0.ffn_down.weight', [512, H], Q6K),
      tensor('output_norm.weight', [H], F32),
    ],
  )
}

describe('fromGgufBytes', () => {
  it('should read architecture, shapes, vocabulary, context and quantization from a GGUF v3 file', async () => {
    const r = await fromGgufBytes(llamaFile())
    expect(r.model).toMatchObject({
      name: 'tiny-test-llama', architecture: 'llama', hiddenDim: H, numLayers: 2, numHeads: 4, numKvHeads: 2,
      headDim: 64, intermediateDim: 512, vocabSize: 32, contextLength: 4096, quant: 'Q4_K',
    })
    expect(r.fileType).toBe('Q4_K_M')
    expect(r.parameterCount).toBe(H * 32 + H * H + 512 * H + H)
    expect(r.model.paramsB).toBeCloseTo(r.parameterCount / 1e9, 15)
    expect(r.tensorTypes.map((t) => t.type)).toEqual(['Q6_K', 'Q4_K', 'F32'])
    expect(r.metadata['tokenizer.ggml.tokens']).toBe('[32 values]')
  })

  it('should work from a Blob as well as bytes', async () => {
    const r = await fromGgufBytes(new Blob([llamaFile()]))
    expect(r.model.numLayers).toBe(2)
  })

  it('should fall back to the dominant tensor type when there is no file type', async () => {
    const bytes = writeTestGguf(
      { 'general.architecture': { type: 'string', value: 'qwen2' }, 'qwen2.embedding_length': { type: 'u32', value: H } },
      [tensor('blk.0.ffn_down.weight', [512, H], Q6K), tensor('output_norm.weight', [H], F32)],
    )
    const r = await fromGgufBytes(bytes)
    expect(r.model.quant).toBe('Q6_K')
    expect(r.assumptions[0]).toContain('dominant tensor type')
  })

  it('should count active parameters of a mixture-of-experts file', async () => {
    const bytes = llamaFile(
      { 'llama.expert_count': { type: 'u32', value: 4 }, 'llama.expert_used_count': { type: 'u32', value: 2 } },
      [tensor('blk.0.attn_q.weight', [H, H], Q4K), tensor('blk.0.ffn_gate_exps.weight', [H, 512, 4], Q4K)],
    )
    const r = await fromGgufBytes(bytes)
    expect(r.model).toMatchObject({ numExperts: 4, expertsPerToken: 2 })
    expect(r.model.activeParamsB! * 1e9).toBeCloseTo(H * H + (H * 512 * 4) / 2, 3)
  })

  it('should reject bytes that are not GGUF with INVALID_FORMAT', async () => {
    await expect(fromGgufBytes(new TextEncoder().encode('not a gguf file at all'))).rejects.toMatchObject({ code: 'INVALID_FORMAT' })
  })

  it('should name ggml tensor and file types', () => {
    expect(ggmlTypeName(12)).toBe('Q4_K')
    expect(ggmlTypeName(30)).toBe('BF16')
    expect(ggufFileTypeName(7)).toBe('Q8_0')
  })
})
