/**
 * Issue 37's "done when" argv, `kerneltune sweep --engine onnx --backend onnxruntime --model-shape
 * 1B`, against the spelling the CLI uses for a synthesized model's shape everywhere else
 * (`model synth`, `demo`: --params N): the issue's flag is refused with the right spelling named,
 * and the corrected argv parses to a 1B llama and plans a sweep, then measures on a small shape.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { chooseLlamaShape, llamaParamCount, parseParamCount } from '@kerneltune/gguf'
import { parseArgs } from '../cli/args.ts'
import { memoryIo } from '../cli/testing.ts'
import { main } from '../main.ts'
import { SWEEP_FLAGS } from './sweep-flags.ts'
import { planOnnxSweep } from '@kerneltune/compose/node'

const dir = mkdtempSync(join(tmpdir(), 'kt-sweep-onnx-argv-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = async (...argv: string[]) => {
  const m = memoryIo(dir, { KERNELTUNE_CACHE_DIR: join(dir, 'cache') })
  const code = await main(argv, m.io)
  return { code, out: m.out(), err: m.err() }
}

const ISSUE_ARGV = ['sweep', '--engine', 'onnx', '--backend', 'onnxruntime', '--model-shape', '1B']
const CPU = { name: 'cpu', vendor: 'cpu' as const, kind: 'cpu' as const, memBwGbs: 20, fp16Tflops: 0.3, unifiedMemory: true, sources: [] }

describe('kerneltune sweep --engine onnx --backend onnxruntime: the shape flag', () => {
  it('should refuse the issue\'s --model-shape as a usage error that names --params N, the CLI\'s spelling', async () => {
    const r = await run(...ISSUE_ARGV)
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/unknown flag --model-shape: this command spells it --params N/)
    // The same spelling in the command's help and in model synth's.
    const help = await run('sweep', '--help')
    expect(help.out).toMatch(/--params N/)
    expect(help.out).toMatch(/onnxruntime/)
    expect((await run('model', 'synth', '--help')).out).toMatch(/--params N/)
  })

  it('should parse the corrected argv to a 1B llama and plan ORT\'s CPU sweep for it', () => {
    const argv = ISSUE_ARGV.slice(1).map((a) => (a === '--model-shape' ? '--params' : a))
    const { flags } = parseArgs(argv, SWEEP_FLAGS)
    expect(flags).toMatchObject({ engine: 'onnx', backend: 'onnxruntime', params: '1B' })
    const shape = chooseLlamaShape({ params: parseParamCount(flags.params as string), vocabSize: 32000 })
    expect(llamaParamCount(shape) / 1e9).toBeGreaterThan(0.9)
    expect(llamaParamCount(shape) / 1e9).toBeLessThan(1.1)
    const plan = planOnnxSweep('standard', CPU, 2)
    expect(plan.candidates.length).toBeGreaterThan(0)
    expect(Object.keys(plan.space)).toEqual(expect.arrayContaining(['ort_intra_op_threads', 'ort_matmulnbits_accuracy']))
  })

  it('should measure real ORT sessions with the corrected argv (on a small shape, to stay fast)', async () => {
    const r = await run('sweep', '--engine', 'onnx', '--backend', 'onnxruntime', '--params', '2M', '--vocab-size', '320', '--quick',
      '--space', JSON.stringify({ ort_intra_op_threads: ['auto', '1'], ort_matmulnbits_accuracy: ['model'] }), '--warmup', '0', '--prompt-tokens', '8', '--gen-tokens', '4',
      '--design', 'sequential', '--reps', '2', '--json', '--db', join(dir, 'kt.db'))
    expect([0, 3], r.err).toContain(r.code)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ ok: true, engine: 'onnx', backend: 'onnxruntime', measured: true, simulated: false, model: { synthesized: true } })
    for (const c of [j.baseline, ...j.combos]) for (const rep of c.reps) expect(rep.decodeTps).toBeGreaterThan(0)
  }, 300_000)
})
