import { describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Io } from '../cli/command.ts'
import { main } from '../main.ts'
import { writeTestGguf } from '../../../../packages/features/src/testing/gguf-writer.ts'

function memoryIo(cwd = '/') {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env: {}, cwd }
  return { io, out: () => out.join(''), err: () => err.join('') }
}

async function run(args: string[], cwd?: string) {
  const m = memoryIo(cwd)
  const code = await main(args, m.io)
  return { code, out: m.out(), err: m.err() }
}

describe('features and roofline on an unset decode context', () => {
  it('should both take 0 tokens of context and say so in assumptions', async () => {
    const flags = ['--params-b', '7', '--quant', 'Q4_K', '--mem-bw-gbs', '1008', '--batch', '2', '--json']
    const features = JSON.parse((await run(['features', ...flags])).out)
    const roofline = JSON.parse((await run(['roofline', ...flags])).out)
    const explicit = JSON.parse((await run(['features', ...flags, '--seq-len', '0'])).out)
    const explicitRoofline = JSON.parse((await run(['roofline', ...flags, '--seq-len', '0'])).out)
    expect(features.workload.contextLength).toBe(0)
    expect(roofline.decode.contextLength).toBe(0)
    expect(features.vector).toEqual(explicit.vector)
    expect(roofline.decode).toEqual(explicitRoofline.decode)
    expect(roofline.trueno).toEqual(explicitRoofline.trueno)
    for (const j of [features, roofline]) expect(j.assumptions).toContainEqual(expect.stringMatching(/decode context unset: 0 tokens/))
    expect(explicit.assumptions.join(' ')).not.toMatch(/decode context unset/)
  })
})

describe('kerneltune roofline', () => {
  it('should report the trueno bound 256.0 and the exact-layout bound for 7B Q4_K at 1008 GB/s', async () => {
    const r = await run(['roofline', '--params-b', '7', '--quant', 'Q4_K', '--mem-bw-gbs', '1008', '--batch', '1', '--json'])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j.truenoBoundTps).toBe(256)
    expect(j.decode.boundTps).toBeCloseTo(256, 9)
    expect(j.decode.binding).toBe('memory')
    expect(j.decode.explanation).toContain('bandwidth binds')
    expect(j.prefill.binding).toMatch(/memory|compute/)
    expect(j.bytesPerWeight).toBe(0.5625)
    const human = await run(['roofline', '--params-b', '7', '--quant', 'Q4K', '--mem-bw-gbs', '1008'])
    expect(human.out).toContain('trueno-compatible bound: 256.0 tok/s')
    expect(human.out).toContain('not measurements')
  })

  it('should exit 2 naming the flag and accepted values on bad input', async () => {
    const q = await run(['roofline', '--params-b', '7', '--quant', 'Q9', '--mem-bw-gbs', '1008'])
    expect(q.code).toBe(2)
    expect(q.err).toMatch(/--quant: "Q9" is not accepted; accepted values: F32, F16/)
    const h = await run(['roofline', '--model', 'llama-3-8b', '--hardware', 'h900'])
    expect(h.code).toBe(2)
    expect(h.err).toMatch(/--hardware: "h900" .*accepted values: h100-sxm/)
    const none = await run(['roofline', '--hardware', 'h100-sxm'])
    expect(none.code).toBe(2)
    expect(none.err).toContain('--model PRESET')
    const two = await run(['roofline', '--model', 'llama-3-8b', '--params-b', '7', '--hardware', 'h100-sxm'])
    expect(two.code).toBe(2)
  })
})

describe('kerneltune features', () => {
  it('should print 42 named values for a GGUF file on h100-sxm at batch 4', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-cli-'))
    try {
      writeFileSync(join(dir, 'm.gguf'), writeTestGguf(
        {
          'general.architecture': { type: 'string', value: 'llama' },
          'general.file_type': { type: 'u32', value: 15 },
          'llama.embedding_length': { type: 'u32', value: 256 },
          'llama.block_count': { type: 'u32', value: 2 },
          'llama.attention.head_count': { type: 'u32', value: 4 },
          'llama.attention.head_count_kv': { type: 'u32', value: 2 },
          'llama.context_length': { type: 'u32', value: 2048 },
        },
        [{ name: 'blk.0.attn_q.weight', dims: [256, 256], type: 12, bytes: 256 * 144 }],
      ))
      const r = await run(['features', '--gguf', 'm.gguf', '--hardware', 'h100-sxm', '--batch', '4', '--json'], dir)
      expect(r.code).toBe(0)
      const j = JSON.parse(r.out)
      expect(j.dim).toBe(42)
      expect(j.features).toHaveLength(42)
      expect(j.features[6]).toEqual({ index: 6, name: 'batch_size_norm', value: 4 / 64 })
      expect(j.vector).toHaveLength(42)
      expect(j.model).toMatchObject({ quant: 'Q4_K', numLayers: 2, hiddenDim: 256 })
      expect(j.hardware.id).toBe('h100-sxm')
      const missing = await run(['features', '--gguf', 'nope.gguf'], dir)
      expect(missing.code).toBe(2)
      expect(missing.err).toContain('--gguf')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('should document every flag in --help', async () => {
    const r = await run(['features', '--help'])
    for (const f of ['--model', '--model-config', '--gguf', '--params-b', '--quant', '--hidden-dim', '--layers', '--heads', '--kv-heads', '--vocab', '--hardware', '--mem-bw-gbs', '--tflops', '--sm-count', '--l2-mb', '--batch', '--seq-len', '--cuda-graphs', '--prefill', '--kernel', '--json']) {
      expect(r.out).toContain(f)
    }
  })
})

describe('kerneltune hardware', () => {
  it('should list, show and detect', async () => {
    const list = JSON.parse((await run(['hardware', 'list', '--json'])).out)
    expect(list.length).toBeGreaterThanOrEqual(30)
    const show = JSON.parse((await run(['hardware', 'show', 'RTX', '4090', '--json'])).out)
    expect(show).toMatchObject({ id: 'rtx-4090', memBwGbs: 1008, backend: 'cuda' })
    expect((await run(['hardware', 'show', 'm1-ultra'])).out).toMatch(/usual backend\s+metal/)
    expect((await run(['hardware', 'show', 'nope'])).code).toBe(2)
    const d = JSON.parse((await run(['hardware', 'detect', '--json'])).out)
    expect(d.cpu.threads).toBeGreaterThan(0)
  })
})

// kerneltune demo (now the whole measured flow) is tested in demo.test.ts.
