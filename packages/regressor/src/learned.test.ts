import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { loadThroughputData } from '../scripts/data-rows.ts'
import { RECENT_HOST_LIMITED } from '../scripts/recent-rows.ts'
import { calibrate, crossValidate, LearnedModel, leaveOneGroupOut, permutationImportance, pretrainedModel, QUERY_FEATURE_NAMES, trainEvaluated } from './index.ts'

const DATA = fileURLToPath(new URL('../../../../shared/data/llm_throughput', import.meta.url))

describe.skipIf(requireOrSkip(existsSync(DATA), `data: ${DATA} is absent (learned models on the public measurements)`))('learned models on the public measurements', () => {
  const all = existsSync(DATA) ? loadThroughputData(DATA).samples : []
  // Every 8th row keeps the forest tests quick; the ridge uses everything.
  const small = all.filter((_, i) => i % 8 === 0)

  it('should refuse fewer than 10 samples with INSUFFICIENT_DATA', () => {
    expect(() => LearnedModel.train(all.slice(0, 9))).toThrow(/need >= 10/)
  })

  it('should train a ridge model whose k-fold MAPE beats predicting the roofline bound', () => {
    const cv = crossValidate(all, { kind: 'linear', k: 5, seed: 1 })
    const m = LearnedModel.train(all, { kind: 'linear' })
    const bounds = all.map((s) => m.predict(s.query).rooflineTps)
    const boundMape = bounds.reduce((t, b, i) => t + Math.abs(b - all[i]!.measuredTps) / all[i]!.measuredTps, 0) / all.length
    expect(cv.mape).toBeLessThan(0.5)
    expect(cv.mape).toBeLessThan(boundMape / 2)
  })

  it('should train a random forest behind the same interface and round-trip it through JSON', () => {
    const { model, cv } = trainEvaluated(small, { kind: 'forest', forest: { nEstimators: 10, maxDepth: 6 }, k: 3, seed: 2 })
    expect(model.kind).toBe('forest')
    expect(model.mape).toBe(cv.mape)
    expect(model.json.importance.map(([n]) => n)).toEqual([...QUERY_FEATURE_NAMES])
    const back = LearnedModel.fromJSON(JSON.parse(JSON.stringify(model.toJSON())))
    for (const s of small.slice(0, 5)) {
      const a = model.predict(s.query)
      expect(back.predict(s.query).predictedTps).toBeCloseTo(a.predictedTps, 3)
      expect(a.predictedTps).toBeLessThanOrEqual(a.rooflineTps)
      expect(a.topFeatures).toHaveLength(5)
    }
  })

  it('should rank bandwidth-related features above noise in permutation importance', () => {
    const m = LearnedModel.train(all, { kind: 'linear' })
    // The same importance estimated with five permutation seeds: how far it moves between seeds
    // is the estimate's noise, and a feature that matters must stand well clear of it.
    const runs = [3, 4, 5, 6, 7].map((seed) => Object.fromEntries(permutationImportance(m, all, { seed })))
    for (const r of runs) expect(Object.keys(r)).toEqual([...QUERY_FEATURE_NAMES])
    // Decode is memory-bound: the roofline bound (bandwidth over bytes per token), the bandwidth
    // itself and the bytes per weight.
    for (const name of ['log2_roofline_tps', 'log2_mem_bw_gbs', 'bytes_per_weight']) {
      const xs = runs.map((r) => r[name]!)
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length
      const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1))
      expect({ name, aboveNoise: mean > 3 * sd && mean > 0.005 }).toEqual({ name, aboveNoise: true })
    }
    const ranked = Object.entries(runs[0]!).sort((a, b) => b[1] - a[1]).map(([n]) => n)
    expect(ranked[0]).toBe('log2_roofline_tps')
  })

  it('should read llama-bench prefill with a 2048-token micro-batch, which the GB10 rows require', () => {
    const pp = all.filter((s) => s.id!.startsWith('llamacpp_benches_llama_bench') && s.query.phase === 'prefill')
    expect(pp.length).toBeGreaterThan(0)
    expect(pp.every((s) => s.query.ubatch === 2048)).toBe(true)
    // At 512, gpt-oss-120b's pp2048 would read all its expert bytes four times: above the measured rate.
    const oss = pp.filter((s) => s.group === 'gb10' && s.query.paramsB > 100 && (s.query.contextTokens ?? 0) === 0)
    const bytes = 59.02 * 2 ** 30
    const fastest512 = 2048 / ((4 * bytes) / (273 * 1e9))
    expect(Math.max(...oss.map((s) => s.measuredTps))).toBeGreaterThan(fastest512)
  })

  it('should read the current-build rows with their backend, micro-batch and file bits per weight (issue 26)', () => {
    const recent = all.filter((s) => s.id!.startsWith('llamacpp_recent_builds.csv:'))
    const row = (n: number) => recent.find((s) => s.id === `llamacpp_recent_builds.csv:${n}`)
    // Data row 1 (row_id 17): RTX 5070 Ti, CUDA, Qwen3.5-35B-A3B "Q2_K" file of 11.76 GiB: 2.91 bits per weight.
    expect(row(1)!.query).toMatchObject({ backend: 'cuda', quant: 'Q2_K', activeParamsB: 3, phase: 'prefill', ubatch: 512 })
    expect(row(1)!.query.bitsPerWeight).toBeCloseTo((11.76 * 2 ** 30 * 8) / 34.66e9, 6)
    expect(row(1)!.group).toBe('rtx-5070-ti')
    // The same RTX 4090 on Vulkan and on CUDA; the micro-batch sweeps keep their n_ubatch.
    expect(new Set(recent.filter((s) => s.group === 'rtx-4090').map((s) => s.query.backend))).toEqual(new Set(['vulkan', 'cuda']))
    expect(recent.filter((s) => s.query.ubatch === 1)).toHaveLength(1)
    // Layer split, the combined pp+tg rate, the unnamed CPUs and the flagged row are left out.
    expect(recent.some((s) => s.id === 'llamacpp_recent_builds.csv:25')).toBe(false)
    expect(new Set(recent.map((s) => s.query.backend))).toEqual(new Set(['cuda', 'vulkan', 'metal', 'rocm', 'cpu']))
  })

  it('should leave out the cards on a Raspberry Pi host, as PROVENANCE §A4 cautions (issue 38)', () => {
    const recent = all.filter((s) => s.id!.startsWith('llamacpp_recent_builds.csv:'))
    // The R9700 and the RTX 3060 were measured only on the Pi CM5; the RTX 2080 Ti keeps its desktop Vulkan rows.
    expect(recent.filter((s) => s.group === 'radeon-ai-pro-r9700' || s.group === 'rtx-3060')).toEqual([])
    expect(new Set(recent.filter((s) => s.group === 'rtx-2080-ti').map((s) => s.query.backend))).toEqual(new Set(['vulkan']))
    const file = loadThroughputData(DATA).files.find((f) => f.file === 'llamacpp_recent_builds.csv')!
    expect(file.excluded[RECENT_HOST_LIMITED]).toBe(7)
  })

  it('should predict held-out hardware (leave-one-hardware-out) for every chip in the data', () => {
    const r = leaveOneGroupOut(all, { kind: 'linear' })
    expect(Object.keys(r.byGroup).length).toBeGreaterThan(10)
    expect(r.predictions.every((p) => p > 0)).toBe(true)
  })

  it('should calibrate to measurements of one machine and report held-out MAPE before and after', () => {
    // The M2 Ultra decode rows of the llama.cpp benches: real measurements on one machine.
    const m2 = all.filter((s) => s.group === 'm2-ultra' && s.query.phase === 'decode' && s.id!.startsWith('llamacpp_benches_llama_bench')).slice(0, 6)
    expect(m2.length).toBe(6)
    const { result, model } = calibrate(pretrainedModel(), m2)
    expect(result.count).toBe(6)
    expect(result.mapeAfter).toBeLessThan(result.mapeBefore)
    const p = model.predict(m2[0]!.query)
    expect(p.model).toContain('calibrated')
    expect(p.predictedTps).toBeLessThanOrEqual(p.rooflineTps)
    expect(() => calibrate(pretrainedModel(), m2.slice(0, 2))).toThrow(/at least 3/)
    const other = all.find((s) => s.group === 'rtx-4090')!
    expect(() => calibrate(pretrainedModel(), [...m2.slice(0, 2), other])).toThrow(/one hardware/)
  })
})
