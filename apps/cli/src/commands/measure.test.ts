import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Io } from '../cli/command.ts'
import { runCli } from '../cli/run.ts'
import { measureCommand } from './measure.ts'
import { modelCommand } from './model.ts'

const dir = mkdtempSync(join(tmpdir(), 'kt-measure-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function memoryIo() {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env: {}, cwd: dir }
  return { io, out: () => out.join(''), err: () => err.join('') }
}
const root = { name: 'kerneltune', summary: 'root', subcommands: [modelCommand, measureCommand] }
const run = async (...argv: string[]) => {
  const m = memoryIo()
  const code = await runCli(root, argv, m.io)
  return { code, out: m.out(), err: m.err() }
}

describe('kerneltune model synth', () => {
  it('should write a GGUF of the announced size with no partial file left', async () => {
    const r = await run('model', 'synth', '--params', '1M', '--vocab-size', '300', '--quant', 'Q8_0', '--out', 'tiny.gguf', '--json')
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ ok: true, written: true, arch: 'llama', quant: 'Q8_0', path: join(dir, 'tiny.gguf') })
    expect(j.note).toMatch(/meaningless text/)
    expect(readdirSync(dir)).toEqual(['tiny.gguf'])
  })

  it('should refuse to overwrite without --force, and describe a multi-GB model with --dry-run', async () => {
    const again = await run('model', 'synth', '--params', '1M', '--vocab-size', '300', '--out', 'tiny.gguf')
    expect(again.code).toBe(2)
    expect(again.err).toMatch(/exists; pass --force/)
    const dry = JSON.parse((await run('model', 'synth', '--params', '7B', '--quant', 'Q4_0', '--dry-run', '--json')).out)
    expect(dry).toMatchObject({ written: false, shape: { hidden: 4096 } })
    expect(dry.bytes).toBeGreaterThan(3.5e9)
  })
})

describe('kerneltune measure --engine llamacpp', () => {
  it('should measure the synthetic model and print every repetition with summaries', async () => {
    const r = await run('measure', '--engine', 'llamacpp', '--gguf', 'tiny.gguf', '--threads', '1', '--flash-attn', 'on',
      '--cache-type-k', 'q8_0', '--cache-type-v', 'q8_0', '--reps', '2', '--warmup', '1', '--prompt-tokens', '16', '--gen-tokens', '4', '--json')
    expect(r.code, r.err).toBe(0)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ ok: true, engine: 'llamacpp', measured: true, simulated: false, repetitions: 2, combo: { threads: '1', flash_attn: 'on' } })
    expect(j.llamaServerArgv).toEqual(['llama-server', '-m', join(dir, 'tiny.gguf'), '--threads', '1', '--flash-attn', 'on', '--cache-type-k', 'q8_0', '--cache-type-v', 'q8_0'])
    expect(j.reps).toHaveLength(2)
    for (const rep of j.reps) for (const k of ['prefillTps', 'decodeTps', 'ttftMs']) expect(rep[k]).toBeGreaterThan(0)
    for (const k of ['prefillTps', 'decodeTps', 'ttftMs']) expect(j[k]).toMatchObject({ n: 2 })
    expect(j.model).toMatchObject({ architecture: 'llama', vocab: 300 })
    expect(j.device).toMatch(/^CPU/)
  })

  it('should refuse what llama.cpp cannot run before loading anything', async () => {
    const r = await run('measure', '--gguf', 'tiny.gguf', '--flash-attn', 'off', '--cache-type-v', 'q4_0', '--json')
    expect(r.code).toBe(2)
    expect(JSON.parse(r.out).error.message).toMatch(/requires flash attention/)
  })

  it('should require an existing GGUF', async () => {
    expect((await run('measure', '--json')).code).toBe(2)
    expect((await run('measure', '--gguf', 'missing.gguf')).err).toMatch(/is not a file/)
  })

  it('should refuse a truncated GGUF before loading it, naming the tensor outside the file', async () => {
    // The header is whole at 60% of the file: only the tensor extents show the cut.
    const whole = readFileSync(join(dir, 'tiny.gguf'))
    writeFileSync(join(dir, 'cut.gguf'), whole.subarray(0, Math.floor(whole.length * 0.6)))
    const r = await run('measure', '--gguf', 'cut.gguf', '--reps', '1', '--json')
    expect(r.code).toBe(2)
    const message = JSON.parse(r.out).error.message as string
    expect(message).toMatch(/cut\.gguf is truncated: tensor '[^']+' \([A-Z0-9_]+, [0-9x]+\) lies at bytes \d+\.\.\d+ but the file has only \d+ bytes/)
    expect(message).toMatch(/fetch or write the file again/)
    rmSync(join(dir, 'cut.gguf'))
  })
})
