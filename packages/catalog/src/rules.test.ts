import { describe, expect, it } from 'vitest'
import { CORE_DIMENSION_IDS, CORE_DIMENSION_VALUES } from '@kerneltune/core'
import { createCatalog } from './catalog.ts'
import { CORE_DIMENSIONS } from './dimensions.ts'
import { CORE_RULES } from './rules.ts'
import { A100, H100, L4, M2, MI300X, T4 } from '../test/fixtures.ts'

const catalog = createCatalog()
const base = { attention_backend: 'flash_attn_v2', kv_layout: 'paged', matmul_path: 'cublas', activation_dtype: 'fp16', fusion_strategy: 'none', cuda_graph: 'per-shape' }
const rulesHit = (combo: Record<string, string>, hardware: typeof A100) => catalog.check(combo, { hardware, engine: 'vllm' }).violations.map((v) => v.rule)

describe('core dimensions', () => {
  it('should cover exactly the six core dimensions and their value ids, with valid defaults and quick subsets', () => {
    expect(CORE_DIMENSIONS.map((d) => d.id)).toEqual([...CORE_DIMENSION_IDS])
    for (const d of CORE_DIMENSIONS) {
      const ids = d.values.map((v) => v.id)
      expect(ids).toEqual([...CORE_DIMENSION_VALUES[d.id as keyof typeof CORE_DIMENSION_VALUES]])
      expect(ids).toContain(d.defaultValue)
      for (const q of d.quickValues ?? []) expect(ids).toContain(q)
      for (const v of d.values) expect(v.description.length).toBeGreaterThan(5)
    }
  })
})

describe('core rules', () => {
  it('should give every rule a unique id, a reason, a source and known dimensions', () => {
    expect(new Set(CORE_RULES.map((r) => r.id)).size).toBe(CORE_RULES.length)
    for (const r of CORE_RULES) {
      expect(r.reason.length).toBeGreaterThan(20)
      expect(r.source.length).toBeGreaterThan(20)
      for (const d of r.dimensions) expect(CORE_DIMENSION_IDS as readonly string[]).toContain(d)
    }
  })

  it('should make FP8 illegal before sm_89 and legal on Ada and Hopper', () => {
    const fp8 = { ...base, attention_backend: 'flashinfer', activation_dtype: 'fp8_e4m3' }
    expect(rulesHit(fp8, A100)).toEqual(['fp8-needs-sm89'])
    expect(rulesHit(fp8, L4)).toEqual([])
    expect(rulesHit(fp8, H100)).toEqual([])
    expect(rulesHit(fp8, MI300X)).toEqual(['flashinfer-needs-nvidia-sm75'])
  })

  it('should require Hopper for FlashAttention-3 and Machete', () => {
    expect(rulesHit({ ...base, attention_backend: 'flash_attn_v3' }, A100)).toEqual(['flash-attn-v3-needs-hopper'])
    expect(rulesHit({ ...base, attention_backend: 'flash_attn_v3' }, L4)).toEqual(['flash-attn-v3-needs-hopper'])
    expect(rulesHit({ ...base, matmul_path: 'machete' }, L4)).toEqual(['machete-needs-hopper'])
    expect(rulesHit({ ...base, attention_backend: 'flash_attn_v3', matmul_path: 'machete' }, H100)).toEqual([])
  })

  it('should prune fp8_e5m2 with FlashAttention-2 before Hopper only', () => {
    const e5 = { ...base, activation_dtype: 'fp8_e5m2' }
    expect(rulesHit(e5, L4)).toEqual(['e5m2-flash-attn-v2-pre-hopper'])
    expect(catalog.check(e5, { hardware: L4, engine: 'vllm' }).violations[0]!.kind).toBe('prune')
    expect(rulesHit(e5, H100)).toEqual([])
    expect(rulesHit(e5, A100)).toEqual(['fp8-needs-sm89', 'e5m2-flash-attn-v2-pre-hopper'])
  })

  it('should reject CUDA-only paths on Apple and Turing-era limits on T4', () => {
    expect(rulesHit(base, M2)).toEqual(expect.arrayContaining(['flash-attn-v2-needs-sm80', 'vendor-blas-needs-cuda-or-rocm', 'graphs-need-cuda-or-hip']))
    expect(rulesHit({ ...base, attention_backend: 'flashinfer' }, T4)).toEqual([])
    expect(rulesHit({ ...base, attention_backend: 'flashinfer', activation_dtype: 'bf16' }, T4)).toEqual(['bf16-needs-sm80'])
    expect(rulesHit({ ...base, attention_backend: 'flashinfer', matmul_path: 'triton' }, T4)).toEqual(['triton-below-documented-sm80'])
    expect(rulesHit({ ...base, attention_backend: 'paged_attention', kv_layout: 'contiguous' }, H100)).toEqual(['paged-attention-needs-paged-kv'])
  })

  it('should report unknown dimensions and values as issues', () => {
    const r = catalog.check({ ...base, kv_layout: 'ring', warp_size: '64' }, { hardware: H100, engine: 'vllm' })
    expect(r.legal).toBe(false)
    expect(r.issues.join(' ')).toMatch(/kv_layout=ring is not a value.*warp_size is not a dimension/)
  })
})
