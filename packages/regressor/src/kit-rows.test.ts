import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { chipOf } from './chips.ts'
import { parseQuery } from './query.ts'
import { kitExtraRows, kitPaths, kitRows, shapeRequestOf } from '../scripts/kit-rows.ts'
import type { DataSet } from '../scripts/data-common.ts'

const KIT = fileURLToPath(new URL('../../../bench/results/gpu/predict-vs-measure.json', import.meta.url))

describe('the GPU kit rows as training samples (issue 26)', () => {
  it('reads the model synth flags the kit ran with', () => {
    expect(shapeRequestOf(['--params', '6B', '--experts', '8', '--experts-used', '2', '--vocab-size', '32000'])).toEqual({ params: 6e9, experts: 8, expertsUsed: 2, vocabSize: 32000 })
    expect(shapeRequestOf(['--params', '1.2B', '--hidden', '2048', '--layers', '16'])).toEqual({ params: 1.2e9, hidden: 2048, layers: 16 })
    expect(() => shapeRequestOf(['--hidden', '2048'])).toThrow(/--params/)
  })

  it('turns the committed H100 run into current-build CUDA rows of the H100 die, with the files\' shapes and sizes', () => {
    const out: DataSet = { samples: [], files: [] }
    kitRows(KIT, out)
    expect(out.samples).toHaveLength(18)
    expect(out.files[0]).toMatchObject({ file: 'bench/results/gpu/predict-vs-measure.json', rows: 18, used: 18 })
    for (const s of out.samples) {
      expect(s.group).toBe('h100-sxm')
      expect(chipOf(s.group!)).toBe('nvidia-gh100')
      const q = parseQuery(s.query)
      expect(q.backend).toBe('cuda')
      expect(q.engineEra).toBeUndefined() // current build
      expect(q.memBwGbs).toBe(3350)
    }
    const dec8 = out.samples.find((s) => s.id!.endsWith('llama-8b-q4_0:decode'))!
    expect(dec8.measuredTps).toBeCloseTo(333.603411, 5)
    // Llama 3 8B shape: 32 layers, 8 KV heads × 128 → 2 × 1024 × 32 × 2 bytes per context token.
    expect(dec8.query).toMatchObject({ layers: 32, kvBytesPerToken: 131072, contextTokens: 64, phase: 'decode' })
    expect(dec8.query.bitsPerWeight).toBeCloseTo((4520985824 * 8) / 8030261248, 9)
    const moePre = out.samples.find((s) => s.id!.endsWith('moe-q8_0:prefill'))!
    expect(moePre.query).toMatchObject({ phase: 'prefill', ubatch: 512, promptTokens: 512, contextTokens: 0 })
    expect(moePre.query.activeParamsB).toBeCloseTo(1.77200128, 8)
  })

  it('reads the H200 run (17 files) and the llama-bench runs beside it, leaving out the workloads the kit measured', () => {
    const out: DataSet = { samples: [], files: [] }
    const paths = kitPaths()
    expect(paths.kit).toHaveLength(2)
    kitRows(paths.kit[1]!, out)
    expect(out.samples).toHaveLength(34)
    expect(out.samples.every((s) => s.group === 'h200' && chipOf(s.group) === 'nvidia-gh100' && s.query.memBwGbs === 4800)).toBe(true)
    const before = out.samples.length
    kitExtraRows(paths.kitExtra[0]!, out)
    const extra = out.samples.slice(before)
    // 3 files × (pp512 at ub 128, 256 + pp2048 at 5 micro-batches) + 2 files × (depths 4k, 16k).
    expect(extra).toHaveLength(3 * 7 + 2 * 2)
    expect(out.files.slice(1).reduce((n, f) => n + (f.excluded['the kit run measured this workload'] ?? 0), 0)).toBe(3 * 3 + 2)
    const ub = extra.find((s) => s.id!.endsWith('ubatch-llama-8b-q4_0.json:pp2048:ub1024'))!
    expect(ub.query).toMatchObject({ phase: 'prefill', promptTokens: 2048, ubatch: 1024, contextTokens: 0, quant: 'Q4_0' })
    expect(ub.measuredTps).toBeGreaterThan(0)
    const deep = extra.find((s) => s.id!.endsWith('depth-llama-8b-f16.json:d16384'))!
    expect(deep.query).toMatchObject({ phase: 'decode', contextTokens: 16384 + 64, quant: 'F16', kvBytesPerToken: 131072 })
    // Decode slows as the context grows (more KV cache read per token): what the rows are for.
    const d = (id: string) => extra.find((s) => s.id!.endsWith(id))!.measuredTps
    expect(d('depth-llama-8b-q4_0.json:d16384')).toBeLessThan(d('depth-llama-8b-q4_0.json:d4096'))
  })
})
