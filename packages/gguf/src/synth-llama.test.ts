import { describe, expect, it } from 'vitest'
import { chooseLlamaShape, llamaActiveParamCount, llamaParamCount, parseParamCount } from './llama-shape.ts'
import { ggufModelInfo, readGgufHeader } from './reader.ts'
import { synthLlama, synthNote } from './synth-llama.ts'
import { byteVocab } from './vocab.ts'
import { ggufBytes } from './writer.ts'

describe('chooseLlamaShape', () => {
  it('should land within 15% of the target and keep every width a multiple of 32', () => {
    for (const params of [2e6, 60e6, 350e6, 1e9, 7e9]) {
      const s = chooseLlamaShape({ params, vocabSize: params < 1e7 ? 512 : 32000 })
      expect(Math.abs(llamaParamCount(s) / params - 1)).toBeLessThan(0.15)
      for (const w of [s.hidden, s.ffn, s.headDim, s.kvHeads * s.headDim]) expect(w % 32).toBe(0)
      expect(s.heads * s.headDim).toBe(s.hidden)
      expect(s.heads % s.kvHeads).toBe(0)
    }
  })

  it('should pick a Llama-2-7B-like width for 7B', () => {
    const s = chooseLlamaShape({ params: 7e9 })
    expect(s.hidden).toBe(4096)
    expect(s.headDim).toBe(128)
  })

  it('should count every expert in the total and only the routed ones (plus the router) as active', () => {
    const s = chooseLlamaShape({ params: 47e9, experts: 8, expertsUsed: 2, hidden: 4096, layers: 32, ffn: 14336 })
    // Mixtral 8x7B: 46.7B total, 12.9B active (its published figures).
    expect(llamaParamCount(s) / 1e9).toBeCloseTo(46.7, 1)
    expect(llamaActiveParamCount(s) / 1e9).toBeCloseTo(12.9, 1)
    const dense = chooseLlamaShape({ params: 7e9 })
    expect(llamaActiveParamCount(dense)).toBe(llamaParamCount(dense))
    expect(dense).not.toHaveProperty('experts')
  })

  it('should land a MoE near its total target and refuse expert counts llama.cpp cannot load', () => {
    const s = chooseLlamaShape({ params: 8e9, experts: 8 })
    expect(Math.abs(llamaParamCount(s) / 8e9 - 1)).toBeLessThan(0.15)
    expect(s).toMatchObject({ experts: 8, expertsUsed: 2 })
    expect(() => chooseLlamaShape({ params: 1e6, experts: 1 })).toThrow(/from 2 to 512/)
    expect(() => chooseLlamaShape({ params: 1e6, experts: 4, expertsUsed: 5 })).toThrow(/from 1 to experts \(4\)/)
    expect(() => chooseLlamaShape({ params: 1e6, expertsUsed: 2 })).toThrow(/needs experts/)
    expect(() => chooseLlamaShape({ params: 1e6, ffn: 100 })).toThrow(/multiple of 32/)
  })

  it('should read parameter counts with suffixes', () => {
    expect(parseParamCount('60M')).toBe(60e6)
    expect(parseParamCount('1.5B')).toBe(1.5e9)
    expect(parseParamCount('300k')).toBe(3e5)
    expect(() => parseParamCount('lots')).toThrow(/60M, 1.5B/)
  })
})

describe('byteVocab', () => {
  it('should hold the specials, all 256 byte tokens, the space piece, and distinct fillers', () => {
    const v = byteVocab(300)
    expect(v.tokens.slice(0, 3)).toEqual(['<unk>', '<s>', '</s>'])
    expect(v.tokens[3]).toBe('<0x00>')
    expect(v.tokens[258]).toBe('<0xFF>')
    expect(v.types.slice(3, 259).every((t) => t === 6)).toBe(true)
    expect(v.tokens[259]).toBe('\u2581')
    expect(new Set(v.tokens).size).toBe(300)
  })
})

describe('synthLlama', () => {
  const small = { params: 1.5e6, vocabSize: 320, seed: 7 } as const

  it('should describe every llama tensor with the requested type, and norms in F32', () => {
    const m = synthLlama({ ...small, quant: 'Q4_0' })
    const names = m.file.tensors.map((t) => t.name)
    expect(names).toContain('token_embd.weight')
    expect(names).toContain('output.weight')
    expect(names).toContain('output_norm.weight')
    for (const t of ['attn_norm', 'attn_q', 'attn_k', 'attn_v', 'attn_output', 'ffn_norm', 'ffn_gate', 'ffn_up', 'ffn_down']) {
      expect(names).toContain(`blk.${m.shape.layers - 1}.${t}.weight`)
    }
    for (const t of m.file.tensors) expect(t.type).toBe(t.dims.length === 1 ? 'F32' : 'Q4_0')
    const params = m.file.tensors.reduce((n, t) => n + t.dims.reduce((a, b) => a * b, 1), 0)
    expect(params).toBe(m.paramCount)
  })

  it('should write the llama metadata llama.cpp requires, matching the shape', async () => {
    const m = synthLlama({ ...small, quant: 'Q8_0' })
    const bytes = await ggufBytes(m.file)
    expect(bytes.length).toBe(m.layout.totalBytes)
    const h = readGgufHeader(bytes)
    expect(h.metadata).toMatchObject({
      'general.architecture': 'llama',
      'general.file_type': 7,
      'llama.embedding_length': m.shape.hidden,
      'llama.block_count': m.shape.layers,
      'llama.feed_forward_length': m.shape.ffn,
      'llama.attention.head_count': m.shape.heads,
      'llama.attention.head_count_kv': m.shape.kvHeads,
      'llama.rope.dimension_count': m.shape.headDim,
      'tokenizer.ggml.model': 'llama',
    })
    expect((h.metadata['tokenizer.ggml.tokens'] as string[]).length).toBe(320)
    expect(String(h.metadata['general.description'])).toMatch(/meaningless text/)
  })

  it('should be deterministic for a seed and differ across seeds', async () => {
    const a = await ggufBytes(synthLlama({ ...small, quant: 'F16' }).file)
    const b = await ggufBytes(synthLlama({ ...small, quant: 'F16' }).file)
    const c = await ggufBytes(synthLlama({ ...small, quant: 'F16', seed: 8 }).file)
    // Compared by hand: deep equality over megabytes is slow in the test runners.
    const same = (x: Uint8Array, y: Uint8Array) => x.length === y.length && x.every((v, i) => v === y[i])
    expect(same(a, b)).toBe(true)
    expect(a.length).toBe(c.length)
    expect(same(a, c)).toBe(false)
  })

  it('should shrink with the quantization as the block sizes say (F16 2 B, Q8_0 34/32 B, Q4_0 18/32 B per weight)', () => {
    const size = (quant: 'F16' | 'Q8_0' | 'Q4_0') => synthLlama({ ...small, quant }).layout.totalBytes
    const f16 = size('F16')
    expect(size('Q8_0') / f16).toBeCloseTo(34 / 64, 1)
    expect(size('Q4_0') / f16).toBeCloseTo(18 / 64, 1)
  })

  it('should describe a multi-GB model without generating it', () => {
    const m = synthLlama({ params: 7e9, quant: 'Q4_0' })
    expect(m.layout.totalBytes).toBeGreaterThan(3.5e9)
    expect(m.layout.totalBytes).toBeLessThan(4.5e9)
  })

  it('should write a Mixtral-layout MoE: router in F32, stacked expert tensors, expert metadata', async () => {
    const m = synthLlama({ ...small, quant: 'Q8_0', experts: 4, expertsUsed: 2 })
    const h = readGgufHeader(await ggufBytes(m.file))
    const { hidden, ffn, layers } = m.shape
    const info = (n: string) => h.tensors.find((t) => t.name === `blk.${layers - 1}.${n}.weight`)
    expect(info('ffn_gate_inp')).toMatchObject({ dims: [hidden, 4], type: 'F32' })
    expect(info('ffn_gate_exps')).toMatchObject({ dims: [hidden, ffn, 4], type: 'Q8_0' })
    expect(info('ffn_up_exps')).toMatchObject({ dims: [hidden, ffn, 4], type: 'Q8_0' })
    expect(info('ffn_down_exps')).toMatchObject({ dims: [ffn, hidden, 4], type: 'Q8_0' })
    expect(info('ffn_gate')).toBeUndefined()
    expect(h.metadata).toMatchObject({ 'llama.expert_count': 4, 'llama.expert_used_count': 2, 'llama.feed_forward_length': ffn })
    const elements = h.tensors.reduce((n, t) => n + t.dims.reduce((a, b) => a * b, 1), 0)
    expect(elements).toBe(m.paramCount)
    const experts = h.tensors.filter((t) => t.name.endsWith('_exps.weight')).reduce((n, t) => n + t.dims.reduce((a, b) => a * b, 1), 0)
    expect(m.activeParamCount).toBe(m.paramCount - experts / 2)
    expect(m.file.metadata['general.name']?.value).toMatch(/-4x2e-Q8_0$/)
  })

  it('should refuse a vocabulary too small for the byte tokens and an unknown quant', () => {
    expect(() => synthLlama({ params: 1e6, vocabSize: 100 })).toThrow(/at least 260/)
    expect(() => synthLlama({ params: 1e6, quant: 'Q5_K' as never })).toThrow(/F16, Q8_0, Q4_0/)
    expect(() => synthLlama({ params: 1e6, vocabSize: 300, fill: 'zeros' as never })).toThrow(/random, tiled/)
  })
})

describe('synthLlama options as a command passes them', () => {
  it('should treat an option given as undefined as left out, and say what each fill is good for', () => {
    const given = synthLlama({ params: 2e6, vocabSize: 512, hidden: undefined, layers: undefined, ffn: undefined, experts: undefined, expertsUsed: undefined, seed: undefined, fill: undefined })
    expect(given.shape).toEqual(synthLlama({ params: 2e6, vocabSize: 512 }).shape)
    expect(given.fill).toBe('random')
    expect(synthNote('random')).toMatch(/^random weights: .*its speed is real$/)
    expect(synthNote('tiled')).toMatch(/^random rows, tiled: /)
  })
})

describe('ggufModelInfo', () => {
  it('should read the name, architecture, sizes and vocabulary of a header, and null for what it lacks', async () => {
    const m = synthLlama({ params: 2e6, vocabSize: 512, quant: 'Q8_0' })
    const info = ggufModelInfo(readGgufHeader(await ggufBytes(m.file)))
    expect(info).toEqual({ name: m.file.metadata['general.name']!.value, architecture: 'llama', fileType: 7, tensors: m.file.tensors.length, hidden: m.shape.hidden, layers: m.shape.layers, vocab: 512 })
    expect(ggufModelInfo({ version: 3, metadata: {}, tensors: [], alignment: 32, dataOffset: 0 })).toEqual({ name: null, architecture: 'unknown', fileType: null, tensors: 0, hidden: null, layers: null, vocab: null })
  })
})
