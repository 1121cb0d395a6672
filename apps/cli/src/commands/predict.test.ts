import { describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pretrainedInfo } from '@kerneltune/regressor'
import type { Io } from '../cli/command.ts'
import { main } from '../main.ts'
import { checkRow } from '@kerneltune/regressor'

async function run(args: string[], cwd = '/') {
  const out: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: () => {}, interactive: false, env: {}, cwd }
  const code = await main(args, io)
  return { code, out: out.join('') }
}

describe('kerneltune predict', () => {
  it('should print a clamped prediction with the roofline bound as JSON', async () => {
    const r = await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--json'])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j.kind).toBe('prediction')
    expect(j.predictedTps).toBeGreaterThan(0)
    expect(j.predictedTps).toBeLessThanOrEqual(j.rooflineTps)
    expect(typeof j.capped).toBe('boolean')
    expect(j.confidence).toBeGreaterThan(0)
    const pre = JSON.parse((await run(['predict', '--params-b', '8', '--hardware', 'rtx-4090', '--phase', 'prefill', '--prompt-tokens', '1024', '--json'])).out)
    expect(pre.query.phase).toBe('prefill')
    expect(pre.predictedTps).toBeGreaterThan(j.predictedTps)
  })

  it('should carry the kernel figures of the preset into the query, each overridden by its raw-spec flag (issue 38)', async () => {
    const j = JSON.parse((await run(['predict', '--params-b', '7', '--quant', 'Q4_0', '--hardware', 'rtx-4090', '--phase', 'prefill', '--json'])).out)
    expect(j.query).toMatchObject({ int8Tops: 660.6, computeUnits: 128 })
    const raw = JSON.parse((await run(['predict', '--params-b', '7', '--quant', 'Q4_0', '--vendor', 'nvidia', '--mem-bw-gbs', '1008', '--tflops', '330', '--int8-tops', '100', '--fp16-nontensor-tflops', '82', '--clock-mhz', '2520', '--compute-units', '128', '--phase', 'prefill', '--json'])).out)
    expect(raw.query).toMatchObject({ int8Tops: 100, fp16VectorTflops: 82, clockMhz: 2520, computeUnits: 128 })
    const over = JSON.parse((await run(['predict', '--params-b', '7', '--quant', 'Q4_0', '--hardware', 'rtx-4090', '--int8-tops', '300', '--phase', 'prefill', '--json'])).out)
    expect(over.query.int8Tops).toBe(300)
    const bad = await run(['predict', '--params-b', '7', '--hardware', 'rtx-4090', '--int8-tops', '-1'])
    expect(bad.code).toBe(2)
    // train / calibrate measurement rows take the same figures as keys.
    const row = checkRow({ paramsB: 7, quant: 'Q4_0', hardware: 'rtx-4090', int8Tops: 300, computeUnits: 128, measuredTps: 9000, phase: 'prefill' }, 1)
    expect('query' in row && row.query).toMatchObject({ int8Tops: 300, computeUnits: 128 })
    expect('message' in checkRow({ paramsB: 7, hardware: 'rtx-4090', int8Tops: 0, measuredTps: 1 }, 2)).toBe(true)
  })

  it('should name the model version that predicted, from the shipped asset (issue 34)', async () => {
    const j = JSON.parse((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--json'])).out)
    const meta = pretrainedInfo() as { scriptVersion: string; seed: number }
    expect(j.modelVersion).toBe(`${j.model} v${meta.scriptVersion} (packages/regressor/scripts/train-pretrained.ts, seed ${meta.seed})`)
    const h = JSON.parse((await run(['predict', '--params-b', '7', '--quant', 'Q4K', '--mem-bw-gbs', '1008', '--heuristic', '--json'])).out)
    expect(h.modelVersion).toBe('heuristic (trueno default weights)')
  })

  it('should carry a 90% interval around the prediction, in JSON and in text (issue 18)', async () => {
    const j = JSON.parse((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--json'])).out)
    expect(j.interval.level).toBe(0.9)
    expect(j.interval.low).toBeLessThan(j.predictedTps)
    expect(j.interval.high).toBeGreaterThan(j.predictedTps)
    expect(j.interval.high).toBeLessThanOrEqual(j.rooflineTps)
    const text = (await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090'])).out
    expect(text).toMatch(/90% interval\s+[\d,.]+ – [\d,.]+ tok\/s/)
    const h = JSON.parse((await run(['predict', '--params-b', '7', '--quant', 'Q4K', '--mem-bw-gbs', '1008', '--heuristic', '--json'])).out)
    expect(h.interval).toBeUndefined()
  })

  it('should say when a prediction extrapolates past what the training rows cover, and what was measured there', async () => {
    // Intel on SYCL is in the data since issue 38 (the Arc Pro B70): a discrete Intel GPU is inside it.
    const intel = JSON.parse((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'intel-max-1550', '--json'])).out)
    expect(intel.query.backend).toBe('sycl')
    expect(intel.extrapolation).toBeUndefined()
    const nv = JSON.parse((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--json'])).out)
    expect(nv.extrapolation).toBeUndefined()
    // A vendor no training row has extrapolates, and gets the wider interval calibrated on held-out rows that extrapolated.
    const width = (j: { interval: { low: number; high: number }; predictedTps: number }) => (j.interval.high - j.interval.low) / j.predictedTps
    const other = JSON.parse((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--vendor', 'other', '--json'])).out)
    // The class twice (v3.6.0): the shipped variant learns a class's current builds apart on the memory terms.
    expect(other.extrapolation).toEqual(['vendor:other', 'class:other-gpu:current', 'class:other-gpu'])
    expect(width(other)).toBeGreaterThan(width(nv))
    const text = (await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--vendor', 'other'])).out
    // The note quotes the held-out figures the pretrained asset records for such rows.
    expect(text).toMatch(/extrapolates\s+vendor:other, class:other-gpu:current, class:other-gpu \(no training row has these.*chips [a-z0-9-]+.*\) were \d+% \(decode\) and \d+% \(prefill\) off/)
    expect((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090'])).out).not.toMatch(/extrapolates/)
  })

  it('should take the backend and vendor from flags, presets and input lines (issue 26)', async () => {
    const card = ['predict', '--params-b', '8', '--quant', 'Q4_0', '--mem-bw-gbs', '1792', '--tflops', '419', '--json']
    const plain = JSON.parse((await run(card)).out)
    expect(plain.query.vendor).toBe('other')
    const nv = JSON.parse((await run([...card, '--backend', 'cuda', '--vendor', 'nvidia'])).out)
    expect(nv.query).toMatchObject({ vendor: 'nvidia', backend: 'cuda' })
    expect(nv.extrapolation).toBeUndefined()
    // The preset names its usual backend; --backend overrides it, and the same card predicts differently.
    const cuda = JSON.parse((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--json'])).out)
    const vulkan = JSON.parse((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--backend', 'vulkan', '--json'])).out)
    expect(cuda.query.backend).toBe('cuda')
    expect(vulkan.query.backend).toBe('vulkan')
    // v3.3.0 puts this card's CUDA and Vulkan decode within 0.3 tok/s of each other (the A5 Vulkan rows moved the
    // Vulkan decode effect); its prefill still differs by far more.
    expect(vulkan.predictedTps).not.toBe(cuda.predictedTps)
    const pre = async (backend: string) => JSON.parse((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--phase', 'prefill', '--backend', backend, '--json'])).out).predictedTps as number
    expect(await pre('vulkan')).not.toBeCloseTo(await pre('cuda'), 0)
    const ub = JSON.parse((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--phase', 'prefill', '--ubatch', '16', '--json'])).out)
    expect(ub.query.ubatch).toBe(16)
    expect(ub.predictedTps).toBeLessThan(JSON.parse((await run(['predict', '--model', 'llama-3-8b', '--hardware', 'rtx-4090', '--phase', 'prefill', '--json'])).out).predictedTps)
    expect((await run([...card, '--backend', 'opencl'])).code).toBe(2)
    const dir = mkdtempSync(join(tmpdir(), 'kt-predict-'))
    try {
      writeFileSync(join(dir, 'rows.jsonl'), [
        '{"paramsB":8,"quant":"Q4_0","memBwGbs":1792,"tflops":419,"vendor":"nvidia","backend":"cuda"}',
        '{"paramsB":8,"quant":"Q4_0","hardware":"rtx-4090","backend":"vulkan"}',
        '{"paramsB":8,"quant":"Q4_0","hardware":"rtx-4090","backend":"opencl"}',
        '{"paramsB":35,"activeParamsB":3,"quant":"Q2_K","bitsPerWeight":2.91,"hardware":"rtx-5070-ti","phase":"prefill","ubatch":512}',
      ].join('\n') + '\n')
      const rows = (await run(['predict', '--input', 'rows.jsonl', '--json'], dir)).out.trim().split('\n').map((l) => JSON.parse(l))
      expect(rows[0].query).toMatchObject({ vendor: 'nvidia', backend: 'cuda' })
      expect(rows[1].query).toMatchObject({ vendor: 'nvidia', backend: 'vulkan' })
      expect(rows[2].error.message).toMatch(/backend.*cuda.*metal.*vulkan.*rocm.*sycl.*cpu/s)
      expect(rows[3].query).toMatchObject({ backend: 'cuda', bitsPerWeight: 2.91 })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('should give the trueno worked value 256.0 with --heuristic', async () => {
    const r = await run(['predict', '--params-b', '7', '--quant', 'Q4K', '--mem-bw-gbs', '1008', '--heuristic', '--json'])
    const j = JSON.parse(r.out)
    expect(j.predictedTps).toBe(256)
    expect(j.capped).toBe(true)
    expect(j.confidence).toBeCloseTo(0.765, 10)
  })

  it('should predict JSON lines in order, mixing presets and explicit specs, with an error object per bad line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-predict-'))
    try {
      writeFileSync(join(dir, 'rows.jsonl'), [
        '{"paramsB":8,"quant":"Q4_K_M","hardware":"rtx-4090"}',
        '{"paramsB":70,"quant":"Q4_K","memBwGbs":5300,"tflops":1300,"phase":"prefill","promptTokens":2048}',
        'not json',
        '{"paramsB":7,"hardware":"no-such-gpu"}',
        '{"paramsB":-1,"memBwGbs":100,"tflops":10}',
        '{"paramsB":7,"quant":"Q4_0","hardware":"M2 Ultra","batch":4,"context":1024}',
      ].join('\n') + '\n')
      const r = await run(['predict', '--input', 'rows.jsonl', '--json'], dir)
      expect(r.code).toBe(0)
      const rows = r.out.trim().split('\n').map((l) => JSON.parse(l))
      expect(rows.map((x) => x.line)).toEqual([1, 2, 3, 4, 5, 6])
      expect(rows.map((x) => 'error' in x)).toEqual([false, false, true, true, true, false])
      expect(rows[3].error.message).toContain('no-such-gpu')
      expect(rows[5].query.contextTokens).toBe(1024)
      for (const x of rows.filter((x) => !x.error)) expect(x.predictedTps).toBeLessThanOrEqual(x.rooflineTps)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('should exit 2 on a missing hardware or a bad model file', async () => {
    expect((await run(['predict', '--params-b', '7'])).code).toBe(2)
    expect((await run(['predict', '--params-b', '7', '--hardware', 'rtx-4090', '--model-file', '/nonexistent.json'])).code).toBe(2)
  })
})
