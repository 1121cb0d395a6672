import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRegistry, isKerneltuneError, parseWith, WorkloadSchema, type MeasurementResult } from '@kerneltune/core'
import { checkMeasurementBackend } from '@kerneltune/backends'
import { synthOnnxLlama } from '@kerneltune/onnx'
import { writeOnnxFile } from '@kerneltune/onnx/node'
import { onnxruntimeBackend, onnxruntimeRunBackend } from './onnxruntime-node.node.ts'

// Synthetic llamas of about 1.6M parameters (8 query heads over 2 KV heads, two layers): 6.4 MB
// in fp32, 0.9 MB in 4-bit. Random weights, so the text is meaningless, but ORT runs every kernel
// a trained model of this shape would.
const SHAPE = { params: 1.6e6, hidden: 256, layers: 2, vocabSize: 320, contextLength: 128, seed: 21 } as const
const dir = mkdtempSync(join(tmpdir(), 'onnxruntime-'))
const q4 = join(dir, 'tiny-q4.onnx')
const fp32 = join(dir, 'tiny-fp32.onnx')
beforeAll(async () => {
  await writeOnnxFile(q4, synthOnnxLlama({ ...SHAPE, weights: 'q4' }))
  await writeOnnxFile(fp32, synthOnnxLlama({ ...SHAPE, weights: 'fp32' }))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The quality gate's numbers, from the note the backend writes. */
function gate(result: MeasurementResult): { abs: number; rel: number; agree: boolean } {
  const note = result.notes!.find((n) => n.startsWith('quality gate'))!
  const m = /max abs error (\S+), relative (\S+) .*greedy tokens (agree|differ)/.exec(note)!
  return { abs: Number(m[1]), rel: Number(m[2]), agree: m[3] === 'agree' }
}

const workload = parseWith(WorkloadSchema, { batch: 1, promptTokens: 24, generatedTokens: 6, phase: 'decode' }, 'workload')

describe('onnxruntimeBackend (onnxruntime-node, CPU execution provider)', () => {
  it('should register as a real backend and load ONNX Runtime here', async () => {
    const backend = onnxruntimeBackend({ modelPath: q4 })
    expect(createRegistry([backend]).get('measurement-backend', 'onnxruntime').simulated).toBe(false)
    expect(await backend.available!()).toEqual({ ok: true })
  }, 60_000)

  it('should measure every repetition after the warm-ups with the translated session options', async () => {
    const progress: number[] = []
    const result = await onnxruntimeBackend({ modelPath: q4 }).measure({
      combo: { ort_intra_op_threads: '1', ort_execution_mode: 'sequential', ort_cpu_mem_arena: 'off', fusion_strategy: 'aggressive' },
      workload, warmups: 1, repetitions: 2, onProgress: (d) => progress.push(d),
    })
    expect(result).toMatchObject({ backend: 'onnxruntime', simulated: false })
    expect(result.device).toMatch(/^CPU: .*ONNX Runtime 1\.30\.0 \(onnxruntime-node, CPU execution provider\)/)
    expect(progress).toEqual([1, 2, 3])
    expect(result.repetitions).toHaveLength(2)
    for (const rep of result.repetitions) {
      for (const v of [rep.prefillTps, rep.decodeTps, rep.ttftMs, rep.latencyMs, rep.throughputTps]) expect(Number.isFinite(v) && v! > 0).toBe(true)
      expect(rep.latencyMs).toBeGreaterThan(rep.ttftMs!)
      expect(rep.peakMemoryBytes).toBeGreaterThanOrEqual(0)
    }
    const notes = result.notes!.join('\n')
    expect(notes).toMatch(/"graphOptimizationLevel":"all","executionMode":"sequential","intraOpNumThreads":1,"enableCpuMemArena":false/)
    expect(notes).toMatch(/2 layers, 2 KV heads of 32, vocabulary 320/)
  }, 60_000)

  it('should gate quality: fp32 logits of the optimised session match the unoptimised session\'s to float rounding', async () => {
    const result = await onnxruntimeBackend({ modelPath: fp32 }).measure({ combo: { fusion_strategy: 'aggressive' }, workload, warmups: 0, repetitions: 1 })
    const g = gate(result)
    // Fusions (RMSNorm into SimplifiedLayerNormalization, MatMul+Add …) reorder float operations only.
    expect(g.rel).toBeLessThan(1e-4)
    expect(g.agree).toBe(true)
  }, 60_000)

  it('should apply the MatMulNBits accuracy level to the model: int8 activations (4) move the logits more than the model\'s own level', async () => {
    const backend = onnxruntimeBackend({ modelPath: q4 })
    const asExported = gate(await backend.measure({ combo: {}, workload, warmups: 0, repetitions: 1 }))
    const int8 = await backend.measure({ combo: { ort_matmulnbits_accuracy: '4' }, workload, warmups: 0, repetitions: 1 })
    expect(int8.notes!.join('\n')).toMatch(/accuracy_level=4 set on the model's 15 MatMulNBits nodes/)
    // Level 4 quantizes the activations to int8 per block: an error fp32 compute does not have.
    expect(gate(int8).abs).toBeGreaterThan(10 * asExported.abs)
    expect(gate(int8).rel).toBeLessThan(0.1)
  }, 60_000)

  it('should refuse what the translation refuses, before loading, with the engine\'s reason', async () => {
    const err = await onnxruntimeBackend({ modelPath: q4 }).measure({ combo: { ort_intra_op_threads: '3' }, workload, warmups: 0, repetitions: 1 }).then(() => undefined, (e: unknown) => e)
    expect(isKerneltuneError(err) && err.code).toBe('UNSUPPORTED_COMBINATION')
    expect((err as Error).message).toMatch(/ort_intra_op_threads=3/)
    const missing = await onnxruntimeBackend({ modelPath: join(dir, 'absent.onnx') }).measure({ combo: {}, warmups: 0, repetitions: 1 }).then(() => undefined, (e: unknown) => e)
    expect(isKerneltuneError(missing) && missing.code).toBe('MEASUREMENT_FAILED')
  }, 60_000)

  it('should conform to the measurement-backend contract (the backends conformance suite)', async () => {
    const report = await checkMeasurementBackend(onnxruntimeRunBackend(), { combo: {}, workload }, { modelPath: q4, repetitions: [2, 3] })
    expect(report).toMatchObject({ problems: [], notRun: [] })
    expect(report.device).toMatch(/ONNX Runtime/)
  }, 120_000)
})
