import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { CORE_DIMENSION_VALUES, formatCommandLine, type Translation } from '@kerneltune/core'
import { inventoryProblems, testEngine } from '@kerneltune/engine-conformance'
import { planVllm, VLLM_DEFAULT_VERSION, VLLM_RELEASES, VLLM_VERSIONS, vllmEngine, vllmInventory } from './index.ts'

// The inventories are read-only reference data outside the repository; tests skip without them.
const DIR = process.env.KERNELTUNE_ENGINE_INVENTORIES ?? fileURLToPath(new URL('../../../../shared/reference/engines/', import.meta.url))
const FILE = `${DIR}/vllm.json`
const HAVE = existsSync(FILE)

// The engine's own per-release inventories (releases.ts) drive the conformance suite; vllm.json (a
// single 0.11.x-era snapshot) cross-checks that every flag and variable name they use exists.
testEngine({ engine: () => vllmEngine() })

describe.skipIf(requireOrSkip(HAVE, `reference: ${FILE} is absent (vLLM inventories)`))('vLLM inventories against vllm.json', () => {
  it('should use only flag and variable names the reference inventory lists', () => {
    const json = HAVE ? JSON.parse(readFileSync(FILE, 'utf8')) as { flags: Record<string, unknown>; env: Record<string, unknown> } : { flags: {}, env: {} }
    for (const version of VLLM_VERSIONS) {
      const inv = vllmInventory(version)
      const missing = [
        ...Object.keys(inv.flags).filter((f) => json.flags[f.replace(/^--no-/, '--')] === undefined),
        ...Object.keys(inv.env).filter((e) => json.env[e] === undefined),
      ]
      expect(missing).toEqual([])
    }
  })
})

const t = (combo: Record<string, string>, version = '0.11.2') => vllmEngine().translate(combo, { model: 'm', version })

describe('vllmEngine', () => {
  it('should select attention through VLLM_ATTENTION_BACKEND on releases before v0.13.0, or refuse paged_attention', () => {
    for (const v of ['0.11.2', '0.12.0']) {
      expect(t({ attention_backend: 'flash_attn_v2' }, v)).toMatchObject({ argv: ['vllm', 'serve', 'm'], env: { VLLM_ATTENTION_BACKEND: 'FLASH_ATTN', VLLM_FLASH_ATTN_VERSION: '2' } })
      expect(t({ attention_backend: 'flash_attn_v3' }, v)).toMatchObject({ env: { VLLM_ATTENTION_BACKEND: 'FLASH_ATTN', VLLM_FLASH_ATTN_VERSION: '3' } })
      expect(t({ attention_backend: 'flashinfer' }, v)).toMatchObject({ env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER' } })
      expect(t({ attention_backend: 'native' }, v)).toMatchObject({ env: { VLLM_ATTENTION_BACKEND: 'FLEX_ATTENTION' } })
      expect(t({ attention_backend: 'paged_attention' }, v)).toMatchObject({ ok: false, dimension: 'attention_backend' })
    }
    expect(t({ attention_backend: 'xformers' })).toMatchObject({ env: { VLLM_ATTENTION_BACKEND: 'XFORMERS' } })
  })

  it('should select attention through --attention-backend from v0.13.0 on, and never set the variable', () => {
    for (const v of ['0.13.0', '0.32.0']) {
      expect(t({ attention_backend: 'flashinfer' }, v)).toMatchObject({ argv: ['vllm', 'serve', 'm', '--attention-backend', 'FLASHINFER'], env: {} })
      expect(t({ attention_backend: 'flash_attn_v3' }, v)).toMatchObject({ argv: ['vllm', 'serve', 'm', '--attention-backend', 'FLASH_ATTN', '--attention-config', '{"flash_attn_version":3}'], env: {} })
    }
  })

  it('should refuse XFORMERS after v0.11.2, naming the release where it works', () => {
    for (const v of ['0.12.0', '0.13.0', '0.32.0']) {
      const r = t({ attention_backend: 'xformers' }, v)
      expect(r).toMatchObject({ ok: false, dimension: 'attention_backend', value: 'xformers' })
      expect(!r.ok && r.reason).toMatch(/works with vLLM 0\.11\.2/)
    }
  })

  it('should refuse a contiguous KV cache and map paged and chunked to chunked prefill off and on', () => {
    expect(t({ kv_layout: 'contiguous' })).toMatchObject({ ok: false, dimension: 'kv_layout', value: 'contiguous' })
    expect(t({ kv_layout: 'paged' })).toMatchObject({ argv: ['vllm', 'serve', 'm', '--no-enable-chunked-prefill'] })
    expect(t({ kv_layout: 'chunked' })).toMatchObject({ argv: ['vllm', 'serve', 'm', '--enable-chunked-prefill'] })
  })

  it('should map each matmul path according to the activation dtype', () => {
    expect(t({ matmul_path: 'cublas', activation_dtype: 'bf16' })).toMatchObject({ ok: true, argv: ['vllm', 'serve', 'm', '--dtype', 'bfloat16'] })
    expect(t({ matmul_path: 'cublas', activation_dtype: 'fp8_e4m3' })).toMatchObject({ ok: false, dimension: 'matmul_path' })
    expect(t({ matmul_path: 'cutlass', activation_dtype: 'fp8_e4m3' })).toMatchObject({ ok: true, argv: ['vllm', 'serve', 'm', '--quantization', 'fp8'] })
    expect(t({ matmul_path: 'cutlass', activation_dtype: 'fp16' })).toMatchObject({ ok: false, dimension: 'matmul_path', value: 'cutlass' })
  })

  it('should refuse to force Machete or the Triton AWQ GEMMs, whose switches are not verified for any supported release', () => {
    for (const v of VLLM_VERSIONS) {
      const machete = t({ matmul_path: 'machete' }, v)
      expect(machete).toMatchObject({ ok: false, dimension: 'matmul_path', value: 'machete' })
      expect(!machete.ok && machete.reason).toMatch(/already tries it first/)
      expect(t({ matmul_path: 'triton' }, v)).toMatchObject({ ok: false, dimension: 'matmul_path', value: 'triton' })
    }
  })

  it('should map activation dtypes and refuse fp8_e5m2 GEMMs', () => {
    expect(t({ activation_dtype: 'fp16' })).toMatchObject({ argv: ['vllm', 'serve', 'm', '--dtype', 'float16'] })
    expect(t({ activation_dtype: 'fp8_e5m2' })).toMatchObject({ ok: false, dimension: 'activation_dtype', value: 'fp8_e5m2' })
  })

  it('should put fusion and CUDA graphs into one --compilation-config', () => {
    const config = (combo: Record<string, string>, version = '0.11.2') => {
      const r = t(combo, version) as Translation
      return JSON.parse(r.argv[r.argv.indexOf('--compilation-config') + 1]!)
    }
    expect(config({ fusion_strategy: 'none', cuda_graph: 'off' })).toEqual({ mode: 0, cudagraph_mode: 'NONE' })
    expect(config({ fusion_strategy: 'conservative', cuda_graph: 'per-shape' })).toEqual({ mode: 3, cudagraph_mode: 'FULL' })
    expect(config({ fusion_strategy: 'aggressive', cuda_graph: 'dynamic' })).toEqual({
      mode: 3,
      cudagraph_mode: 'PIECEWISE',
      pass_config: { enable_fusion: true, enable_attn_fusion: true, enable_noop: true },
    })
    expect(config({ cuda_graph: 'dynamic' })).toEqual({ cudagraph_mode: 'PIECEWISE' })
    expect(t({ fusion_strategy: 'none', cuda_graph: 'dynamic' })).toMatchObject({ ok: false, dimension: 'cuda_graph', value: 'dynamic' })
    // The PassConfig rename (PR #29646) is in v0.12.0 already; v0.32.0 lists only fuse_attn_quant of the four.
    for (const v of ['0.12.0', '0.13.0']) expect(config({ fusion_strategy: 'aggressive' }, v).pass_config).toEqual({ fuse_norm_quant: true, fuse_act_quant: true, fuse_attn_quant: true, eliminate_noops: true })
    expect(config({ fusion_strategy: 'aggressive' }, '0.32.0').pass_config).toEqual({ fuse_attn_quant: true })
  })

  it('should write the renamed PassConfig keys for v0.12.0, whose vllm/config/vllm.py builds -O0..-O2 from them (PR #29646 left the old ones as deprecated aliases)', () => {
    const passes = (vllmEngine().translate({ fusion_strategy: 'aggressive' }, { version: '0.12.0' }) as Translation).argv.at(-1)!
    for (const old of ['enable_fusion', 'enable_attn_fusion', 'enable_noop']) expect(passes).not.toContain(old)
    expect(vllmInventory('0.12.0').configKeys!['--compilation-config']).toContain('pass_config.eliminate_noops')
    expect(VLLM_RELEASES['0.12.0'].evidence.join(' ')).toMatch(/v0\.12\.0\/api\/vllm\/config\/vllm.*eliminate_noops/)
    expect(VLLM_RELEASES['0.12.0'].evidence.join(' ')).not.toMatch(/dated after it/)
    // Issue 34 item 3: v0.11.2's evidence must not say the old names last into v0.12.0.
    expect(VLLM_RELEASES['0.11.2'].evidence.join(' ')).not.toMatch(/up to v0\.12\.0/)
    expect(VLLM_RELEASES['0.11.2'].evidence.join(' ')).toMatch(/last through v0\.11\.x.*v0\.12\.0 already has the new names/)
  })

  it('should keep one default release, the engine\'s: planVllm takes the release from its caller', () => {
    expect(vllmEngine().defaultVersion).toBe(VLLM_DEFAULT_VERSION)
    expect(VLLM_DEFAULT_VERSION).toBe(VLLM_VERSIONS[0])
    // A parameter with a default is not counted by Function.length: both parameters are required.
    expect(planVllm.length).toBe(2)
  })

  it('should catch a v0.13 pass name emitted for v0.11.2 (the inventory check can fail)', () => {
    const bad = { ok: true as const, engine: 'vllm', version: '0.11.2', argv: ['vllm', 'serve', 'm', '--compilation-config', '{"pass_config":{"fuse_norm_quant":true}}'], env: { VLLM_ATTENTION_BACKEND: 'XFORMERS' }, files: {}, notes: [] }
    expect(inventoryProblems(bad, vllmInventory('0.11.2'))).toEqual(['--compilation-config key pass_config.fuse_norm_quant is not in the inventory'])
    expect(inventoryProblems({ ...bad, version: '0.32.0' }, vllmInventory('0.32.0'))).toContain('environment variable VLLM_ATTENTION_BACKEND is not in the inventory')
  })

  it('should default to the newest release, accept a leading v, and refuse an unknown release with the supported list', () => {
    expect(vllmEngine().translate({})).toMatchObject({ ok: true, version: '0.32.0' })
    expect(vllmEngine().translate({}, { version: 'v0.13.0' })).toMatchObject({ ok: true, version: '0.13.0' })
    expect(() => vllmEngine().translate({}, { version: '0.11' })).toThrow(/supported versions: 0\.32\.0, 0\.13\.0, 0\.12\.0, 0\.11\.2/)
    expect(() => vllmEngine().translate({}, { version: '0.20.0' })).toThrow(/not supported/)
  })

  it('should refuse every combination the engines README lists as inexpressible for vLLM', () => {
    const base = { activation_dtype: 'bf16' }
    expect(t({ ...base, kv_layout: 'contiguous' }).ok).toBe(false)
    expect(t({ activation_dtype: 'fp8_e5m2' }).ok).toBe(false)
    for (const v of CORE_DIMENSION_VALUES.kv_layout) if (v !== 'contiguous') expect(t({ kv_layout: v }).ok).toBe(true)
  })
})

describe('the printed vLLM command line', () => {
  it('should hand sh exactly the translation argv and environment (JSON arguments included)', () => {
    for (const version of VLLM_VERSIONS) {
      const r = t({ attention_backend: 'flash_attn_v3', fusion_strategy: 'aggressive', cuda_graph: 'per-shape', kv_layout: 'chunked' }, version) as Translation
      // printf stands in for vllm; a trailing sh prints the variables the command was given.
      const names = Object.keys(r.env)
      const script = `printf '%s\\0' "$@"${names.map((n) => `; printf '%s\\0' "$${n}"`).join('')}`
      const line = formatCommandLine({ argv: ['sh', '-c', script, 'probe', ...r.argv], env: r.env }, { multiline: true })
      const out = execFileSync('sh', ['-c', line], { encoding: 'utf8' }).split('\0').slice(0, -1)
      expect(out.slice(0, r.argv.length)).toEqual([...r.argv])
      expect(out.slice(r.argv.length)).toEqual(names.map((n) => r.env[n]))
      expect(r.argv.some((a) => a.startsWith('{'))).toBe(true)
    }
  })
})
