import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readGgufHeader } from '@kerneltune/gguf'
import { findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { launchServer } from '@kerneltune/serving/node'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { afterAll, describe, expect, it } from 'vitest'
import { runMain } from '../cli/testing.ts'

const dir = mkdtempSync(join(tmpdir(), 'kt-model-synth-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const run = (...argv: string[]) => runMain(argv, dir)
const synth = async (...argv: string[]) => {
  const r = await run('model', 'synth', '--json', ...argv)
  expect(r.code, r.err).toBe(0)
  return JSON.parse(r.out)
}
const file = (name: string) => new Uint8Array(readFileSync(join(dir, name)))
// A MoE small enough for a CPU test: 4 experts of which 2 are routed per token.
const MOE = ['--params', '3M', '--hidden', '256', '--layers', '2', '--vocab-size', '320', '--experts', '4', '--experts-used', '2', '--quant', 'Q8_0']

describe('kerneltune model synth', () => {
  it('should write a tiled file with the layout, size and metadata of the random one', async () => {
    // 256 x 320 embeddings: more rows than the 64k-value tile, so tiling changes bytes.
    const common = ['--params', '2M', '--hidden', '256', '--vocab-size', '320', '--quant', 'Q4_0']
    const random = await synth(...common, '--out', 'random.gguf')
    const tiled = await synth(...common, '--fill', 'tiled', '--out', 'tiled.gguf')
    expect(random.fill).toBe('random')
    expect(tiled).toMatchObject({ fill: 'tiled', bytes: random.bytes, params: random.params, shape: random.shape })
    expect(tiled.note).toMatch(/tiled/)
    const [r, t] = [file('random.gguf'), file('tiled.gguf')]
    const [hr, ht] = [readGgufHeader(r), readGgufHeader(t)]
    expect(ht.metadata).toEqual(hr.metadata)
    expect(ht.tensors).toEqual(hr.tensors)
    expect(t.length).toBe(r.length)
    expect(Buffer.from(t).equals(Buffer.from(r))).toBe(false)
  })

  it('should write a MoE and report total and active parameters that predict --gguf reads back', async () => {
    const j = await synth(...MOE, '--out', 'moe.gguf')
    expect(j.shape).toMatchObject({ experts: 4, expertsUsed: 2, hidden: 256, layers: 2 })
    expect(j.activeParams).toBeLessThan(j.params)
    const h = readGgufHeader(file('moe.gguf'))
    expect(h.metadata).toMatchObject({ 'llama.expert_count': 4, 'llama.expert_used_count': 2, 'llama.feed_forward_length': j.shape.ffn })
    const p = await run('predict', '--gguf', 'moe.gguf', '--hardware', 'h100-sxm', '--json')
    expect(p.code).toBe(0)
    const q = JSON.parse(p.out).query
    expect(q.paramsB * 1e9).toBeCloseTo(j.params, 0)
    expect(q.activeParamsB * 1e9).toBeCloseTo(j.activeParams, 0)
    const dense = await synth('--params', '3M', '--hidden', '256', '--layers', '2', '--vocab-size', '320', '--dry-run')
    expect(dense.activeParams).toBe(dense.params)
    expect(dense.shape).not.toHaveProperty('experts')
  })

  it('should refuse --experts-used without --experts, and an unknown fill, with exit code 2', async () => {
    const a = await run('model', 'synth', '--params', '2M', '--experts-used', '2', '--dry-run')
    expect([a.code, a.err]).toEqual([2, expect.stringMatching(/needs --experts/)])
    expect((await run('model', 'synth', '--params', '2M', '--fill', 'zeros', '--dry-run')).code).toBe(2)
    expect((await run('model', 'synth', '--params', '2M', '--experts', '4', '--experts-used', '5', '--dry-run')).code).toBe(2)
  })
})

// The real llama-server: outside CI a missing binary skips with the reason; under CI=true it fails.
const llama = findLlamaServer()

describe.skipIf(requireOrSkip(Boolean(llama), 'llama-server: build it with bash tooling/scripts/build-llama-server.sh (or set KERNELTUNE_LLAMA_SERVER)'))('kerneltune model synth on llama-server', () => {
  /** Starts llama-server on the file, asks for 8 tokens, and returns the reply and the server's model description. */
  async function generate(name: string) {
    const server = await launchServer({ argv: [llama!.path, '-m', join(dir, name), '--host', '{host}', '--port', '{port}', '-c', '256', '-t', '1'], readyTimeoutMs: 120_000 })
    try {
      const res = await fetch(`${server.baseUrl}/completion`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'hello world', n_predict: 8, ignore_eos: true, temperature: 0 }),
      })
      expect(res.status).toBe(200)
      const models = (await (await fetch(`${server.baseUrl}/v1/models`)).json()) as { data: { meta: { n_params: number } }[] }
      return { reply: (await res.json()) as { tokens_predicted: number }, meta: models.data[0]!.meta }
    } finally {
      await server.stop()
    }
  }

  it('should load a tiled model and generate tokens', async () => {
    const j = await synth('--params', '3M', '--hidden', '256', '--vocab-size', '320', '--quant', 'Q4_0', '--fill', 'tiled', '--out', 'tiled-served.gguf')
    const { reply, meta } = await generate('tiled-served.gguf')
    expect(reply.tokens_predicted).toBe(8)
    expect(meta.n_params).toBe(j.params)
  }, 300_000)

  it('should load a MoE (4 experts, 2 used) as one and generate tokens', async () => {
    const j = await synth(...MOE, '--fill', 'tiled', '--out', 'moe-served.gguf')
    const { reply, meta } = await generate('moe-served.gguf')
    expect(reply.tokens_predicted).toBe(8)
    // llama.cpp counted every expert tensor as loaded: with expert_count unread it would refuse
    // the _exps tensors, and would miss the dense ffn_gate/up/down it then needs.
    expect(meta.n_params).toBe(j.params)
  }, 300_000)
})
