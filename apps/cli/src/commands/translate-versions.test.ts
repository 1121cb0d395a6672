/**
 * The rows of VERSIONS.md §0 ("Changes that matter most to a translator") for vLLM and llama.cpp,
 * one test each, walked through the translators and their per-release inventories; then the
 * `kerneltune translate` command for a current and an old vLLM release, its printed line run
 * through sh; then the facts issue 23 found wrong, each against the upstream file and line.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { CORE_DIMENSION_VALUES, type Combo, type Translation } from '@kerneltune/core'
import { planVllm, VLLM_DEFAULT_VERSION, VLLM_RELEASES, VLLM_VERSIONS, vllmEngine, vllmInventory } from '@kerneltune/engines-vllm'
import { ORT_RELEASES, ORT_VERSIONS, SDPA_KERNEL } from '@kerneltune/engines-onnx'
import { TRITON_RELEASES, TRITON_VERSIONS } from '@kerneltune/engines-triton'
import { LLAMACPP_BUILDS, LLAMACPP_VERSION, llamacppEngine, llamacppInventory } from '@kerneltune/engines-llamacpp'
import type { Io } from '../cli/command.ts'
import { main } from '../main.ts'

const vllm = (combo: Combo, version: string) => vllmEngine().translate(combo, { model: 'm', version })
const ok = (r: ReturnType<typeof vllm>) => {
  expect(r.ok).toBe(true)
  return r as Translation
}
const flagValue = (t: Translation, flag: string) => t.argv[t.argv.indexOf(flag) + 1]
const configOf = (t: Translation) => JSON.parse(flagValue(t, '--compilation-config')!) as { mode?: number; level?: number; pass_config?: Record<string, boolean> }
const everyCombo = Object.values(CORE_DIMENSION_VALUES.attention_backend).map((a) => ({ attention_backend: a, fusion_strategy: 'aggressive', cuda_graph: 'dynamic', activation_dtype: 'fp8_e4m3', matmul_path: 'cutlass' }))

describe('VERSIONS.md §0, vLLM rows', () => {
  it('backend selection: VLLM_ATTENTION_BACKEND up to v0.12.0, --attention-backend from v0.13.0 (the variable is not read from v0.15)', () => {
    for (const v of ['0.11.2', '0.12.0']) {
      const t = ok(vllm({ attention_backend: 'flashinfer' }, v))
      expect(t.env.VLLM_ATTENTION_BACKEND).toBe('FLASHINFER')
      expect(t.argv).not.toContain('--attention-backend')
      expect(Object.keys(vllmInventory(v).flags)).not.toContain('--attention-backend')
    }
    for (const v of ['0.13.0', '0.32.0']) {
      const t = ok(vllm({ attention_backend: 'flashinfer' }, v))
      expect(flagValue(t, '--attention-backend')).toBe('FLASHINFER')
      expect(t.env).toEqual({})
      expect(Object.keys(vllmInventory(v).env)).not.toContain('VLLM_ATTENTION_BACKEND')
    }
  })

  it('XFORMERS: present in v0.11.2, gone by v0.13.0', () => {
    expect(ok(vllm({ attention_backend: 'xformers' }, '0.11.2')).env.VLLM_ATTENTION_BACKEND).toBe('XFORMERS')
    for (const v of ['0.13.0', '0.32.0']) expect(vllm({ attention_backend: 'xformers' }, v)).toMatchObject({ ok: false, dimension: 'attention_backend' })
  })

  it('torch.compile level → mode: every release gets `mode`, never the deprecated `level`', () => {
    for (const v of VLLM_VERSIONS) {
      const c = configOf(ok(vllm({ fusion_strategy: 'conservative' }, v)))
      expect(c.mode).toBe(3)
      expect(c.level).toBeUndefined()
      expect(vllmInventory(v).configKeys!['--compilation-config']).not.toContain('level')
    }
  })

  // VERSIONS.md §1.4 dates the rename after v0.12.0; vllm/config/vllm.py at v0.12.0 already builds
  // its -O levels from the new names (docs.vllm.ai/en/v0.12.0/api/vllm/config/vllm/, issue 23 item 2).
  it('PassConfig keys: old names in v0.11.2, new names from v0.12.0 (vllm/config/vllm.py at v0.12.0), never both', () => {
    const old = ['enable_fusion', 'enable_attn_fusion', 'enable_noop', 'enable_sequence_parallelism', 'enable_async_tp', 'enable_fi_allreduce_fusion']
    const renamed = ['fuse_norm_quant', 'fuse_act_quant', 'fuse_attn_quant', 'eliminate_noops', 'enable_sp', 'fuse_gemm_comms', 'fuse_allreduce_rms']
    for (const v of VLLM_VERSIONS) {
      const passes = Object.keys(configOf(ok(vllm({ fusion_strategy: 'aggressive' }, v))).pass_config!)
      const newer = v !== '0.11.2'
      expect(passes.length).toBeGreaterThan(0)
      for (const p of passes) expect(newer ? renamed : old).toContain(p)
    }
  })

  it('-O0..-O3 (new in v0.12.0) and --kv-cache-dtype (values differ per release) are never emitted', () => {
    for (const v of VLLM_VERSIONS) {
      for (const combo of everyCombo) {
        const r = vllm(combo, v)
        if (r.ok) for (const w of r.argv) expect(w === '-O' || /^-O\d$/.test(w) || w === '--kv-cache-dtype').toBe(false)
      }
      expect(vllm({ activation_dtype: 'fp8_e5m2' }, v)).toMatchObject({ ok: false, dimension: 'activation_dtype' })
    }
  })
})

describe('VERSIONS.md §0, llama.cpp rows', () => {
  const llama = (combo: Combo, version: string) => llamacppEngine().translate(combo, { model: 'm.gguf', version }) as Translation

  it('-fa takes a value (on|off|auto) in every supported build (all from b6343 on); an older build is refused', async () => {
    for (const b of LLAMACPP_BUILDS) {
      for (const fa of ['on', 'off', 'auto']) {
        const t = await llama({ flash_attn: fa }, b)
        expect(t.argv.slice(t.argv.indexOf('--flash-attn'), t.argv.indexOf('--flash-attn') + 2)).toEqual(['--flash-attn', fa])
      }
    }
    await expect(Promise.resolve().then(() => llama({}, 'b6000'))).rejects.toThrow(/supported builds: v0\.5\.0, b10114, b6343/)
  })

  it('model loading: --no-mmap/--mlock before b10114, --load-mode from b10114, with auto and mmap+mlock in the bundled build', async () => {
    expect((await llama({ mmap: 'off', mlock: 'on' }, 'b6343')).argv.slice(3)).toEqual(['--no-mmap', '--mlock'])
    expect((await llama({ mmap: 'on', mlock: 'on' }, 'b10114')).argv.slice(3)).toEqual(['--load-mode', 'mlock'])
    expect(await llama({ mmap: 'off', mlock: 'on' }, 'b10114')).toMatchObject({ ok: false, dimension: 'mlock' })
    expect((await llama({ mmap: 'on', mlock: 'on' }, LLAMACPP_VERSION)).argv.slice(3)).toEqual(['--load-mode', 'mmap+mlock'])
    expect(llamacppInventory('b6343').flags['--load-mode']).toBeUndefined()
    expect(llamacppInventory(LLAMACPP_VERSION).flags['--no-mmap']).toBeUndefined()
    expect(llamacppInventory(LLAMACPP_VERSION).flags['--load-mode']!.choices).toContain('auto')
    expect(llamacppInventory('b10114').flags['--load-mode']!.choices).not.toContain('auto')
  })
})

async function cli(argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env: {}, cwd: '/' }
  const code = await main(argv, io)
  return { code, out: out.join(''), err: err.join('') }
}

/** Runs the printed lines through sh, with printf standing in for vllm; returns the words and variables it got. */
function throughShell(printed: string, envNames: readonly string[]): { argv: string[]; env: string[] } {
  const lines = printed.split('\n').filter((l) => l !== '' && !l.startsWith('#'))
  const script = lines.join('\n').replace(/^vllm serve/m, `printf '%s\\0' vllm serve`) + (envNames.length ? `\nprintf '%s\\0' ${envNames.map((n) => `"$${n}"`).join(' ')}` : '')
  const out = execFileSync('sh', ['-c', script], { encoding: 'utf8' }).split('\0').slice(0, -1)
  return { argv: out.slice(0, out.length - envNames.length), env: out.slice(out.length - envNames.length) }
}

describe('kerneltune translate --engine vllm', () => {
  const combo = JSON.stringify({ attention_backend: 'flashinfer', fusion_strategy: 'aggressive', cuda_graph: 'per-shape' })

  it('should select the backend with --attention-backend for the current release, and print a line sh runs unchanged', async () => {
    const json = await cli(['translate', '--engine', 'vllm', '--combo', combo, '--json'])
    const t = JSON.parse(json.out) as Translation
    expect(t.version).toBe('0.32.0')
    expect(flagValue(t, '--attention-backend')).toBe('FLASHINFER')
    const human = await cli(['translate', '--engine', 'vllm', '--combo', combo])
    expect(human.code).toBe(0)
    expect(throughShell(human.out, []).argv).toEqual(t.argv)
  })

  it('should select it only through VLLM_ATTENTION_BACKEND for v0.11.2, exported for the command', async () => {
    const t = JSON.parse((await cli(['translate', '--engine', 'vllm', '--version', '0.11.2', '--combo', combo, '--json'])).out) as Translation
    expect(t.argv).not.toContain('--attention-backend')
    const human = await cli(['translate', '--engine', 'vllm', '--version', '0.11.2', '--combo', combo])
    const got = throughShell(human.out, ['VLLM_ATTENTION_BACKEND'])
    expect(got.argv).toEqual(t.argv)
    expect(got.env).toEqual(['FLASHINFER'])
  })

  it('should refuse an unknown release with the supported list (exit 2)', async () => {
    const r = await cli(['translate', '--engine', 'vllm', '--version', '0.20.0', '--combo', '{}'])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/supported versions: 0\.32\.0, 0\.13\.0, 0\.12\.0, 0\.11\.2/)
  })
})

/** The printed translation as JSON. */
const json = async (argv: string[]) => {
  const r = await cli([...argv, '--json'])
  return { code: r.code, result: JSON.parse(r.out) as Translation & { reason?: string; dimension?: string } }
}
const providerOptions = (t: Translation) => (JSON.parse(t.files['provider_options.json']!) as { provider_options: Record<string, string>[] }).provider_options[0]!

describe('issue 23: translations checked against the engines\' source at the release', () => {
  it('1. TGI 3.3.7 refuses chunked prefill with ATTENTION=paged (server/text_generation_server/models/model.py L82-90 at v3.3.7: chunking only with flashinfer, flashdecoding or flashdecoding-ipex)', async () => {
    const combo = (attention: string) => JSON.stringify({ attention_backend: attention, kv_layout: 'chunked' })
    const human = await cli(['translate', '--engine', 'tgi', '--combo', combo('paged_attention')])
    expect(human.code).toBe(3)
    expect(human.err + human.out).toMatch(/kv_layout=chunked: TGI turns prefill chunking off unless ATTENTION is flashinfer or flashdecoding or flashdecoding-ipex /)
    expect(human.err + human.out).toContain('model.py L73-90 at v3.3.7')
    for (const attention of ['flashinfer', 'flash_attn_v2']) expect((await json(['translate', '--engine', 'tgi', '--combo', combo(attention)])).result.env.PREFILL_CHUNKING).toBe('1')
  })

  it('2. vLLM 0.12.0 writes fuse_norm_quant, fuse_act_quant, fuse_attn_quant, eliminate_noops (vllm/config/vllm.py at v0.12.0; the old names are PR #29646\'s deprecated aliases)', async () => {
    const { code, result } = await json(['translate', '--engine', 'vllm', '--version', '0.12.0', '--combo', '{"fusion_strategy":"aggressive"}'])
    expect(code).toBe(0)
    expect(configOf(result).pass_config).toEqual({ fuse_norm_quant: true, fuse_act_quant: true, fuse_attn_quant: true, eliminate_noops: true })
    expect(VLLM_RELEASES['0.12.0'].evidence.join(' ')).toMatch(/docs\.vllm\.ai\/en\/v0\.12\.0\/api\/vllm\/config\/vllm/)
  })

  it('3. ONNX Runtime native turns every fused kernel off, cross attention (1.19, 1.29) and decoder attention (1.29) included (attention_common.h: ORT_DISABLE_FUSED_CROSS_ATTENTION, ORT_DISABLE_DECODER_ATTENTION)', async () => {
    for (const version of ORT_VERSIONS) {
      const { result } = await json(['translate', '--engine', 'onnx', '--version', version, '--combo', '{"attention_backend":"native"}'])
      // MATH alone: no fused kernel bit of any release is set.
      expect(providerOptions(result)).toEqual({ sdpa_kernel: String(SDPA_KERNEL.math) })
      expect(result.env).toEqual({})
      expect(ORT_RELEASES[version].attentionEnv).toContain('ORT_DISABLE_FUSED_CROSS_ATTENTION')
    }
    expect(ORT_RELEASES['1.29'].attentionEnv).toContain('ORT_DISABLE_DECODER_ATTENTION')
    expect(ORT_RELEASES['1.19'].evidence.join(' ')).toMatch(/attention_common\.h.*L172 ORT_DISABLE_FUSED_CROSS_ATTENTION/)
  })

  it('4. ONNX Runtime flash_attn_v2 keeps FlashAttention only, TensorRT fused attention off too, through sdpa_kernel, which makes the variables ignored (attention_kernel_options.cc L17-35 @ 6ffaaebb, L18-48 @ 7942fa7a)', async () => {
    for (const version of ORT_VERSIONS) {
      const { result } = await json(['translate', '--engine', 'onnx', '--version', version, '--combo', '{"attention_backend":"flash_attn_v2"}'])
      const mask = Number(providerOptions(result).sdpa_kernel)
      expect(mask & ~SDPA_KERNEL.math).toBe(SDPA_KERNEL.flash)
      expect(mask & SDPA_KERNEL.trtFused).toBe(0)
      expect(result.notes.join(' ')).toMatch(/TensorRT fused/)
      // Each release cites the commit whose code has its bits: 6ffaaebb (sdpa_kernel added) for 1.19, 7942fa7a (decoder bit added) for 1.29.
      expect(ORT_RELEASES[version].evidence.join(' ')).toMatch(version === '1.29' ? /attention_kernel_options\.cc at the same commit 7942fa7a: L18-32 `if \(value > 0\)`.*L33-48 `else` reads the ORT_DISABLE_/ : /attention_kernel_options\.cc at microsoft\/onnxruntime commit 6ffaaebb .*L17-25 `if \(value > 0\)`.*L26-35 `else` reads the ORT_DISABLE_/)
    }
  })

  it('5. Triton with the tensorrtllm backend declares the template\'s input and output tensors (all_models/inflight_batcher_llm/tensorrt_llm/config.pbtxt)', async () => {
    for (const version of TRITON_VERSIONS) {
      const { result } = await json(['translate', '--engine', 'triton', '--version', version, '--combo', '{"kv_layout":"chunked"}'])
      const config = result.files['model_repository/tensorrt_llm/config.pbtxt']!
      for (const name of ['input_ids', 'input_lengths', 'request_output_len', 'output_ids', 'sequence_length']) expect(config).toContain(`name: "${name}"`)
      // Without a dtype the model-typed inputs are left out (1.0: two, 0.19: one, which fixes prompt_embedding_table at TYPE_FP16).
      const modelTyped = TRITON_RELEASES[version].inputs.filter((t) => t.dataType === 'MODEL').length
      expect(modelTyped).toBe(version === '1.0' ? 2 : 1)
      expect(config.match(/^ {4}name: /gm)!.length).toBe(TRITON_RELEASES[version].inputs.length - modelTyped + TRITON_RELEASES[version].outputs.length)
      expect(config).toMatch(/^max_batch_size: \d+$/m)
    }
  })

  it('6. vLLM has one default release: the engine\'s, which the Triton vllm backend uses too; planVllm has none of its own', async () => {
    expect(vllmEngine().defaultVersion).toBe(VLLM_DEFAULT_VERSION)
    expect(planVllm.length).toBe(2)
    const { result } = await json(['translate', '--engine', 'triton', '--backend', 'vllm', '--combo', '{}'])
    expect(result.notes.join(' ')).toContain(`vLLM ${VLLM_DEFAULT_VERSION} engine arguments`)
  })
})
