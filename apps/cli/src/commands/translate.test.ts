import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Io } from '../cli/command.ts'
import { main } from '../main.ts'
import { ENGINE_NAMES, engineRegistry } from '@kerneltune/compose'

async function run(argv: string[], cwd = '/') {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env: {}, cwd }
  const code = await main(argv, io)
  return { code, out: out.join(''), err: err.join('') }
}

describe('the engines translate offers', () => {
  it('should be the engines of the shared composition root, each once', async () => {
    const registry = await engineRegistry()
    expect(registry.list('engine').map((e) => e.name)).toEqual([...ENGINE_NAMES])
  })
})

describe('kerneltune translate', () => {
  it('should print the JSON shape of a translation', async () => {
    const r = await run(['translate', '--engine', 'vllm', '--combo', '{"attention_backend":"flashinfer"}', '--model', 'm', '--json'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, version: '0.32.0', argv: ['vllm', 'serve', 'm', '--attention-backend', 'FLASHINFER'], env: {}, files: {} })
  })

  it('should translate llama-server\'s slots and continuous batching for llamacpp', async () => {
    const r = await run(['translate', '--engine', 'llamacpp', '--combo', '{"parallel":"2","cont_batching":"off","threads":"2"}', '--model', 'm.gguf', '--json'])
    expect(r.code).toBe(0)
    const argv = (JSON.parse(r.out) as { argv: string[] }).argv
    expect(argv.slice(-3)).toEqual(['--parallel', '2', '--no-cont-batching'])
    expect(argv).toEqual(expect.arrayContaining(['--threads', '2']))
  })

  it('should print a refusal and exit 3', async () => {
    const r = await run(['translate', '--engine', 'tgi', '--combo', '{"kv_layout":"contiguous"}', '--json'])
    expect(r.code).toBe(3)
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, dimension: 'kv_layout', value: 'contiguous' })
    expect((JSON.parse(r.out) as { reason: string }).reason.length).toBeGreaterThan(10)
  })

  it('should print a ready-to-paste command with its environment and files under headings', async () => {
    const r = await run(['translate', '--engine', 'triton', '--backend', 'vllm', '--vllm-version', '0.11.2', '--combo', '{"attention_backend":"flashinfer"}'])
    expect(r.code).toBe(0)
    expect(r.out).toContain('export VLLM_ATTENTION_BACKEND=FLASHINFER\ntritonserver \\\n  --model-repository=model_repository')
    expect(r.out).toContain('# file: model_repository/vllm_model/1/model.json')
    // Without --vllm-version, model.json is for the vllm engine's default release, which takes the backend as an argument.
    const current = await run(['translate', '--engine', 'triton', '--backend', 'vllm', '--combo', '{"attention_backend":"flashinfer"}', '--json'])
    expect(current.code).toBe(0)
    const files = (JSON.parse(current.out) as { env: Record<string, string>; files: Record<string, string> })
    expect(files.env).toEqual({})
    expect(JSON.parse(files.files['model_repository/vllm_model/1/model.json']!)).toMatchObject({ attention_backend: 'FLASHINFER' })
  })

  it('should read a combo file and pass the version, rejecting an unsupported one with exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-translate-'))
    writeFileSync(join(dir, 'c.json'), '{"cuda_graph":"off"}')
    const ok = await run(['translate', '--engine', 'onnx', '--combo', 'c.json', '--version', '1.19.2', '--json'], dir)
    expect(JSON.parse(ok.out)).toMatchObject({ ok: true, version: '1.19', argv: [] })
    const bad = await run(['translate', '--engine', 'onnx', '--combo', 'c.json', '--version', '9.9', '--json'], dir)
    expect(bad.code).toBe(2)
    expect(JSON.parse(bad.out).error.message).toMatch(/supported versions/)
  })

  it('should translate a JSON-lines file one result per line, with an error object for a bad line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-translate-'))
    writeFileSync(join(dir, 'c.jsonl'), '{"cuda_graph":"off"}\nnot json\n\n{"cuda_graph":"dynamic"}\n{"cuda_graph":3}\n')
    const r = await run(['translate', '--engine', 'tgi', '--combos', 'c.jsonl'], dir)
    expect(r.code).toBe(0)
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => [l.line, l.ok])).toEqual([[1, true], [2, false], [4, false], [5, false]])
    expect(lines[1].error.code).toBe('INVALID_INPUT')
    expect(lines[2]).toMatchObject({ dimension: 'cuda_graph', value: 'dynamic' })
    expect(lines[3].error.code).toBe('INVALID_INPUT')
  })

  it('should ask for --engine and exactly one of --combo and --combos', async () => {
    expect((await run(['translate', '--combo', '{}'])).code).toBe(2)
    expect((await run(['translate', '--engine', 'vllm'])).code).toBe(2)
    expect((await run(['translate', '--engine', 'vllm', '--combo', '{'])).err).toMatch(/not valid JSON/)
  })
})

