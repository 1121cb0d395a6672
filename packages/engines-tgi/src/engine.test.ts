import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { CORE_DIMENSION_VALUES, type Refusal, type Translation } from '@kerneltune/core'
import { coreCombos, inventoryFromJson, inventoryProblems, productOf, testEngine } from '@kerneltune/engine-conformance'
import { TGI_INVENTORIES, TGI_VERSIONS, tgiEngine } from './index.ts'

// The reference inventory is read-only data outside the repository; its cross-check skips without it.
const DIR = process.env.KERNELTUNE_ENGINE_INVENTORIES ?? fileURLToPath(new URL('../../../../shared/reference/engines/', import.meta.url))
const FILE = `${DIR}/tgi.json`
const HAVE = existsSync(FILE)

// TGI has no fusion knob, so the walk adds the product of the other five dimensions with
// fusion_strategy left at the engine default. The inventory is the plugin's own, per release.
const { fusion_strategy: _, ...others } = CORE_DIMENSION_VALUES

testEngine({
  engine: () => tgiEngine(),
  combos: [...coreCombos(), ...productOf(others)],
})

const t = (combo: Record<string, string>) => tgiEngine().translate(combo, { model: 'm' })

describe('tgiEngine', () => {
  it('should map attention backends to ATTENTION and refuse FA3, xformers and native', () => {
    expect(t({ attention_backend: 'flashinfer' })).toMatchObject({ env: { ATTENTION: 'flashinfer' } })
    expect(t({ attention_backend: 'flash_attn_v2' })).toMatchObject({ env: { ATTENTION: 'flashdecoding' } })
    expect(t({ attention_backend: 'paged_attention' })).toMatchObject({ env: { ATTENTION: 'paged' } })
    for (const a of ['flash_attn_v3', 'xformers', 'native']) {
      expect(t({ attention_backend: a })).toMatchObject({ ok: false, dimension: 'attention_backend', value: a })
    }
  })

  it('should refuse a contiguous KV cache and map chunked prefill to PREFILL_CHUNKING', () => {
    expect(t({ kv_layout: 'contiguous' })).toMatchObject({ ok: false, dimension: 'kv_layout' })
    expect(t({ kv_layout: 'paged' })).toMatchObject({ env: { PREFILL_CHUNKING: '0' } })
    expect(t({ kv_layout: 'chunked' })).toMatchObject({ env: { PREFILL_CHUNKING: '1' } })
  })

  it('should refuse chunked prefill with ATTENTION=paged, which model.py L82-90 (v3.3.7) turns off with a warning', () => {
    const r = t({ attention_backend: 'paged_attention', kv_layout: 'chunked' }) as Refusal
    expect(r).toMatchObject({ ok: false, dimension: 'kv_layout', value: 'chunked' })
    // v3.3.7 L83 lists three values and L88 names all three (v3.0.0's message named two).
    expect(r.reason).toMatch(/unless ATTENTION is flashinfer or flashdecoding or flashdecoding-ipex \(/)
    expect(r.reason).toContain('"Prefill chunking is only supported with `flashinfer` or `flashdecoding` or `flashdecoding-ipex` attention types."')
    expect(r.reason).toContain('model.py L73-90 at v3.3.7')
    expect(TGI_INVENTORIES['3.3.7'].evidence!.join(' ')).toMatch(/v3\.3\.7 \(dfb3fbe78e0d\) server\/text_generation_server\/models\/model\.py L73-90.*L83.*L88/)
    expect(TGI_INVENTORIES['3.3.7'].evidence!.join(' ')).not.toMatch(/6994fa12|not stored/)
    for (const a of ['flashinfer', 'flash_attn_v2']) {
      expect(t({ attention_backend: a, kv_layout: 'chunked' })).toMatchObject({ ok: true, env: { PREFILL_CHUNKING: '1' } })
    }
    expect(t({ attention_backend: 'paged_attention', kv_layout: 'paged' })).toMatchObject({ ok: true, env: { ATTENTION: 'paged', PREFILL_CHUNKING: '0' } })
    // Left to the launcher, ATTENTION may resolve to paged: the translation says so.
    expect((t({ kv_layout: 'chunked' }) as Translation).notes.join(' ')).toMatch(/below sm_80 it falls back to paged/)
  })

  it('should reach CUTLASS only through fp8 and refuse Triton and Machete GEMMs', () => {
    expect(t({ matmul_path: 'cutlass', activation_dtype: 'fp8_e4m3' })).toMatchObject({
      argv: ['text-generation-launcher', '--model-id', 'm', '--quantize', 'fp8'],
      env: { USE_CUTLASS_W8A8: '1' },
    })
    expect(t({ matmul_path: 'cutlass', activation_dtype: 'bf16' })).toMatchObject({ ok: false, dimension: 'matmul_path' })
    expect(t({ matmul_path: 'cublas', activation_dtype: 'fp8_e4m3' })).toMatchObject({ ok: false, dimension: 'matmul_path' })
    expect(t({ matmul_path: 'cublas', activation_dtype: 'bf16' })).toMatchObject({ argv: ['text-generation-launcher', '--model-id', 'm', '--dtype', 'bfloat16'] })
    expect(t({ matmul_path: 'triton' }).ok).toBe(false)
    expect(t({ matmul_path: 'machete' }).ok).toBe(false)
  })

  it('should never combine --dtype with --quantize, and refuse e5m2 GEMMs', () => {
    const r = t({ activation_dtype: 'fp8_e4m3' })
    expect(r.ok && r.argv.includes('--dtype')).toBe(false)
    expect(t({ activation_dtype: 'fp16' })).toMatchObject({ argv: ['text-generation-launcher', '--model-id', 'm', '--dtype', 'float16'] })
    expect(t({ activation_dtype: 'fp8_e5m2' })).toMatchObject({ ok: false, dimension: 'activation_dtype' })
  })

  it('should leave fusion to TGI (it has no fusion knob): none is accepted with a note, the others refused', () => {
    expect((t({ fusion_strategy: 'none' }) as Translation).notes).toContain('fusion_strategy=none: left to the engine (Text Generation Inference has no control for fusion_strategy).')
    for (const f of ['conservative', 'aggressive']) {
      expect(t({ fusion_strategy: f })).toMatchObject({ ok: false, dimension: 'fusion_strategy', value: f })
      expect((t({ fusion_strategy: f }) as Refusal).reason).toMatch(/no control for fusion_strategy/)
    }
  })

  it('should map CUDA graphs to --cuda-graphs and refuse dynamic graphs', () => {
    expect(t({ cuda_graph: 'off' })).toMatchObject({ argv: ['text-generation-launcher', '--model-id', 'm', '--cuda-graphs', '0'] })
    expect(t({ cuda_graph: 'per-shape' })).toMatchObject({ argv: ['text-generation-launcher', '--model-id', 'm', '--cuda-graphs', '1,2,4,8,16,32'] })
    expect(t({ cuda_graph: 'dynamic' })).toMatchObject({ ok: false, dimension: 'cuda_graph' })
  })
})

describe('tgiEngine releases', () => {
  it('should support 3.3.7, the maintenance-mode release read at its tag, as the default, and reject other releases with the supported list (VERSIONS.md §0, TGI row)', () => {
    expect(TGI_VERSIONS).toEqual(['3.3.7'])
    expect(tgiEngine().defaultVersion).toBe('3.3.7')
    expect(t({})).toMatchObject({ ok: true, version: '3.3.7' })
    expect(() => tgiEngine().translate({}, { version: '3.0.0' })).toThrow(/supported versions: 3\.3\.7/)
    expect(() => tgiEngine().translate({}, { version: '3.3' })).toThrow(/supported versions: 3\.3\.7/)
  })

  it('should keep the 3.3.7 inventory with its evidence, and catch a name outside it', () => {
    const inventory = tgiEngine().inventory('3.3.7')!
    expect(inventory.evidence?.join(' ')).toMatch(/v3\.3\.7/)
    expect(inventoryProblems(t({ attention_backend: 'flashinfer', cuda_graph: 'off' }) as Translation, inventory)).toEqual([])
    const stray = { ...(t({}) as Translation), env: { ATTENTION: 'flash_attn' } }
    expect(inventoryProblems(stray, inventory)[0]).toMatch(/ATTENTION=flash_attn is not one of/)
  })
})

describe.skipIf(requireOrSkip(HAVE, `reference: ${FILE} is absent (TGI inventory)`))(`tgiEngine inventory against ${FILE}`, () => {
  it('should list the same 54 launcher flags, and environment values the reference knows', () => {
    const ref = inventoryFromJson(HAVE ? JSON.parse(readFileSync(FILE, 'utf8')) : {})
    const ours = TGI_INVENTORIES['3.3.7']
    expect(Object.keys(ours.flags).sort()).toEqual(Object.keys(ref.flags).sort())
    for (const [name, entry] of Object.entries(ours.flags)) expect(entry.choices ?? []).toEqual(ref.flags[name]!.choices ?? [])
    for (const [name, entry] of Object.entries(ours.env)) for (const c of entry.choices ?? []) expect(ref.env[name]!.choices).toContain(c)
  })
})
