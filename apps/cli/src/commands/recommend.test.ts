import { describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pretrainedModel } from '@kerneltune/regressor'
import { runMain } from '../cli/testing.ts'

const run = (args: string[], cwd = '/') => runMain(args, cwd)

describe('kerneltune recommend', () => {
  it('should give the same throughput as predict, the rule kernel and bottleneck, and experiments', async () => {
    const target = ['--model', 'llama-3-8b', '--hardware', 'h100-sxm', '--batch', '1']
    const r = await run(['recommend', ...target, '--json'])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    const p = JSON.parse((await run(['predict', ...target, '--json'])).out)
    // The full query is used, so bandwidth above the vector's 3000 GB/s ceiling still counts.
    expect(j.throughput.predictedTps).toBe(p.predictedTps)
    expect(j.throughput.rooflineTps).toBe(p.rooflineTps)
    expect(j.kernel.topKernel).toBe('CoalescedQ4K')
    expect(j.kernel.alternatives.length).toBeGreaterThan(0)
    expect(j.bottleneck.class).toBe('LaunchBound')
    expect(j.bottleneck.recommendedAction).toContain('CUDA graphs')
    expect(j.confidenceOverall).toBeCloseTo((j.throughput.confidence + j.kernel.confidence + j.bottleneck.confidence) / 3, 12)
    expect(j.experimentText).toHaveLength(j.suggestedExperiments.length)
    expect(j.modelVersion).toBe('1.0.0-pretrained')
  })

  it('should follow batch and CUDA graphs as BrickTuner does, and print readable sections', async () => {
    const r = await run(['recommend', '--params-b', '1.5', '--quant', 'Q4K', '--mem-bw-gbs', '1000', '--tflops', '100', '--batch', '4', '--cuda-graphs', '--json'])
    const j = JSON.parse(r.out)
    expect(j.kernel.topKernel).toBe('BatchedQ4K')
    expect(j.experimentText).toContain('Increase batch size: M=4 → M=8')
    const h = await run(['recommend', '--model', 'llama-3-8b', '--hardware', 'rtx-4090'])
    expect(h.code).toBe(0)
    for (const s of ['Throughput', 'roofline cap', 'Kernel', 'Bottleneck', 'Overall confidence', 'Suggested experiments', 'not a measurement']) expect(h.out).toContain(s)
  })

  it('should use a calibrated --model-file and the heuristic on request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-recommend-'))
    try {
      const base = pretrainedModel()
      const key = '1008GB/s|330TFLOPS'
      writeFileSync(join(dir, 'cal.json'), JSON.stringify({ format: 'kerneltune.calibrated-model', version: 1, base: base.toJSON(), corrections: { [key]: 0.5 } }))
      const args = ['recommend', '--params-b', '8', '--mem-bw-gbs', '1008', '--tflops', '330', '--json']
      const plain = JSON.parse((await run(args, dir)).out)
      const cal = JSON.parse((await run([...args, '--model-file', 'cal.json'], dir)).out)
      expect(cal.throughput.model).toContain('+calibrated')
      expect(cal.throughput.predictedTps).toBeCloseTo(Math.min(plain.throughput.rawTps * 0.5, plain.throughput.rooflineTps), 6)
      const heur = JSON.parse((await run(['recommend', '--params-b', '7', '--quant', 'Q4K', '--mem-bw-gbs', '1008', '--heuristic', '--json'])).out)
      expect(heur.throughput.predictedTps).toBe(256)
      expect(heur.modelVersion).toBe('1.0.0')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('should exit 2 on missing hardware, a bad model file or contradictory flags', async () => {
    expect((await run(['recommend', '--params-b', '7'])).code).toBe(2)
    expect((await run(['recommend', '--params-b', '7', '--hardware', 'rtx-4090', '--model-file', '/nonexistent.json'])).code).toBe(2)
    expect((await run(['recommend', '--params-b', '7', '--hardware', 'rtx-4090', '--phase', 'decode', '--prefill'])).code).toBe(2)
    expect((await run(['recommend', '--help'])).out).toContain('JSON output')
  })
})
