import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { runMain } from '../cli/testing.ts'

const dir = mkdtempSync(join(tmpdir(), 'kt-sweep-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Every sweep stores its run: in a store of the test's own.
const run = (...argv: string[]) => runMain([...argv, '--db', join(dir, 'kt.db')], dir)

describe('kerneltune sweep', () => {
  beforeAll(async () => {
    await writeGgufFile(join(dir, 'tiny.gguf'), synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 5 }).file)
  })

  it('should sweep a small space for real and print the winner or the defaults with a llama-server command line', async () => {
    // threads 1 x flash attention x V cache: 4 combinations, one removed by llama.cpp's rule, 3
    // measured against the defaults (threads auto).
    const space = JSON.stringify({ threads: ['1'], flash_attn: ['auto', 'off'], cache_type_v: ['f16', 'q8_0'] })
    const r = await run('sweep', '--gguf', 'tiny.gguf', '--quick', '--space', space, '--reps', '2', '--warmup', '0', '--prompt-tokens', '16', '--gen-tokens', '4', '--json')
    expect([0, 3]).toContain(r.code)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ ok: true, engine: 'llamacpp', measured: true, simulated: false, mode: 'quick' })
    expect(j.pruned.map((p: { rule: string }) => p.rule)).toEqual(['llamacpp.quantized-v-cache-needs-flash-attn'])
    expect(j.combos).toHaveLength(3)
    for (const c of j.combos) {
      expect(c.reps).toHaveLength(2)
      expect(c.comparison.decodeTps.n).toBe(2)
      expect(typeof c.comparison.decodeTps.cohensD).toBe('number')
    }
    expect(j.baseline.reps).toHaveLength(2)
    expect(j.gate.method).toBe('regression')
    expect(j.recommendedArgv.slice(0, 3)).toEqual(['llama-server', '-m', join(dir, 'tiny.gguf')])
    // One verdict: the stored run's, printed as it is; the winner and exit code follow it.
    expect(r.code === 0).toBe(j.winner !== null)
    expect(r.code === 0).toBe(j.verdict.kind === 'winner')
    expect(r.err).toMatch(/sweep: 4\/4/)
    // The sweep is a stored run: run show reads every combination's repetitions, the run's verdict and the design's wording.
    const show = await run('run', 'show', j.runId, '--json')
    expect([show.code, show.err]).toEqual([0, ''])
    expect(JSON.parse(show.out)).toMatchObject({ run: { id: j.runId, status: 'succeeded', backend: 'node-llama-cpp', summary: { verdict: j.verdict, experiment: { design: 'sequential', verdict: j.designVerdict, recommendedArgv: j.recommendedArgv } } } })
    const combos = JSON.parse(show.out).combos
    expect(combos).toHaveLength(4)
    expect(combos.map((c: { repetitions: unknown[] }) => c.repetitions.length)).toEqual([2, 2, 2, 2])
    const list = JSON.parse((await run('run', 'list', '--json')).out)
    expect(list.items.map((x: { id: string }) => x.id)).toContain(j.runId)
  }, 120_000)

  it('should reject a missing file and an unknown dimension value as usage errors', async () => {
    expect((await run('sweep', '--gguf', 'nope.gguf')).code).toBe(2)
    const bad = await run('sweep', '--gguf', 'tiny.gguf', '--space', '{"threads":["3"]}')
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/unknown values 3/)
  })
})
