/** The TGI (text-generation-inference) engine plugin. */
import { CORE_DIMENSION_VALUES, applyControls, checkCombo, refusal, resolveVersion } from '@kerneltune/core/lite'
import type { Combo, CoreDimensionId, EngineInventory, EnginePlugin, TranslateContext, TranslateResult } from '@kerneltune/core'
import { ATTENTION, BLOCK_SIZE, CHUNKING_ATTENTION, CHUNKING_WARNING, DEFAULT_CUDA_GRAPHS, MODEL_PY, TGI_INVENTORIES, TGI_VERSIONS, type TgiVersion } from './releases.ts'
import { tgiServing } from './serving.ts'

export interface TgiEngineOptions {
  /** The launcher command; default `['text-generation-launcher']`. */
  readonly command?: readonly string[]
}

export const MODEL_PLACEHOLDER = 'MODEL'

type Plan =
  | { ok: true; argv: string[]; env: Record<string, string>; notes: string[] }
  | { ok: false; dimension: CoreDimensionId; reason: string }

const no = (dimension: CoreDimensionId, reason: string): Plan => ({ ok: false, dimension, reason })

function plan(v: Partial<Record<CoreDimensionId, string>>): Plan {
  const argv: string[] = []
  const env: Record<string, string> = {}
  const notes: string[] = []
  const fp8 = v.activation_dtype === 'fp8_e4m3'

  switch (v.attention_backend) {
    case 'flashinfer':
    case 'flash_attn_v2':
    case 'paged_attention': {
      const key = v.attention_backend === 'flashinfer' ? 'flashinfer' : v.attention_backend === 'flash_attn_v2' ? 'flashdecoding' : 'paged'
      env.ATTENTION = ATTENTION[key]
      notes.push(`ATTENTION=${ATTENTION[key]} fixes the KV block size at ${BLOCK_SIZE[key]} tokens.`)
      if (key === 'paged') notes.push('With ATTENTION=paged the launcher turns prefix caching off.')
      break
    }
    case 'flash_attn_v3':
      return no('attention_backend', 'TGI has no FlashAttention 3 path (layers/attention/cuda.py uses FA2 varlen kernels); use flash_attn_v2 (ATTENTION=flashdecoding)')
    case 'xformers':
      return no('attention_backend', 'TGI has no xformers attention; ATTENTION accepts paged, flashdecoding, flashdecoding-ipex and flashinfer')
    case 'native':
      return no('attention_backend', 'TGI has no selector for plain PyTorch (SDPA) attention; ATTENTION accepts paged, flashdecoding, flashdecoding-ipex and flashinfer')
  }

  switch (v.kv_layout) {
    case 'contiguous':
      return no('kv_layout', 'TGI always uses a paged KV cache whose block size ATTENTION fixes; a contiguous cache cannot be expressed')
    case 'paged':
      env.PREFILL_CHUNKING = '0'
      break
    case 'chunked':
      // The server keeps chunking only with flashinfer, flashdecoding or flashdecoding-ipex
      // attention and without speculation; otherwise it logs a warning and serves unchunked
      // (model.py L73-90 at v3.3.7).
      if (env.ATTENTION !== undefined && !CHUNKING_ATTENTION.includes(env.ATTENTION)) {
        return no('kv_layout', `TGI turns prefill chunking off unless ATTENTION is ${CHUNKING_ATTENTION.join(' or ')} ("${CHUNKING_WARNING}", ${MODEL_PY}), so ATTENTION=${env.ATTENTION} with PREFILL_CHUNKING=1 would prefill unchunked; use attention_backend flashinfer or flash_attn_v2 for chunked prefill, or kv_layout paged`)
      }
      env.PREFILL_CHUNKING = '1'
      notes.push('--max-batch-prefill-tokens sets the prefill chunk budget.')
      if (env.ATTENTION === undefined) notes.push(`Chunked prefill stays on only if the launcher picks ATTENTION=${CHUNKING_ATTENTION.join(' or ')} (below sm_80 it falls back to paged for some head sizes and models; main.rs resolve_attention, VERSIONS.md §2): set attention_backend to be sure (${MODEL_PY}).`)
      notes.push(`TGI also turns chunking off when speculation is on (speculate != 0, e.g. --speculate; ${MODEL_PY}).`)
      break
  }

  switch (v.matmul_path) {
    case 'cublas':
      if (fp8) return no('matmul_path', 'TGI runs fp8 GEMMs through CUTLASS (sm_9x) or Marlin (sm_8x); cuBLAS serves unquantized weights only')
      notes.push('cuBLAS is what unquantized weights use; serve an unquantized checkpoint.')
      break
    case 'cutlass':
      if (!fp8) return no('matmul_path', 'TGI reaches CUTLASS GEMMs only through fp8 quantization (--quantize fp8); set activation_dtype to fp8_e4m3')
      // On sm_8x TGI would pick Marlin W8A16 unless told otherwise; on sm_9x CUTLASS is the default.
      env.USE_CUTLASS_W8A8 = '1'
      break
    case 'triton':
      return no('matmul_path', 'TGI has no switch for Triton GEMMs; Triton kernels appear only as an automatic GPTQ fallback')
    case 'machete':
      return no('matmul_path', 'TGI has no Machete kernels')
  }

  switch (v.activation_dtype) {
    case 'fp16':
      argv.push('--dtype', 'float16')
      break
    case 'bf16':
      argv.push('--dtype', 'bfloat16')
      break
    case 'fp8_e4m3':
      // --dtype cannot be combined with --quantize, so fp8 sets only --quantize.
      argv.push('--quantize', 'fp8')
      break
    case 'fp8_e5m2':
      return no('activation_dtype', 'TGI has no e5m2 GEMM path: --quantize fp8 is e4m3, and e5m2 exists only as a KV-cache dtype (--kv-cache-dtype fp8_e5m2)')
  }

  switch (v.cuda_graph) {
    case 'off':
      argv.push('--cuda-graphs', '0')
      break
    case 'per-shape':
      argv.push('--cuda-graphs', DEFAULT_CUDA_GRAPHS)
      break
    case 'dynamic':
      return no('cuda_graph', 'TGI captures CUDA graphs for a fixed list of batch sizes (--cuda-graphs) only; dynamic-shape graphs cannot be expressed')
  }
  return { ok: true, argv, env, notes }
}

// No fusion or graph-compilation level (only --disable-custom-kernels, which turns off some models' custom kernels).
const CONTROLS = ['attention_backend', 'kv_layout', 'matmul_path', 'activation_dtype', 'cuda_graph'] as const

/** The TGI plugin; its translate answers synchronously. */
export interface TgiEnginePlugin extends EnginePlugin {
  translate(combo: Combo, context?: TranslateContext): TranslateResult
  inventory(version: string): EngineInventory | undefined
}

/**
 * Creates the TGI engine plugin.
 *
 * @example
 * ```ts
 * tgiEngine().translate({ attention_backend: 'flashinfer', cuda_graph: 'off' }, { model: 'org/model' })
 * // argv: ['text-generation-launcher', '--model-id', 'org/model', '--cuda-graphs', '0'], env: { ATTENTION: 'flashinfer' }
 * ```
 */
export function tgiEngine(options: TgiEngineOptions = {}): TgiEnginePlugin {
  const command = options.command ?? ['text-generation-launcher']
  const name = 'tgi'
  const displayName = 'Text Generation Inference'
  const defaultVersion = TGI_VERSIONS[0]
  return {
    name,
    kind: 'engine',
    apiVersion: 1,
    displayName,
    description: `text-generation-launcher flags and server environment (TGI ${TGI_VERSIONS.join(', ')}, checked against source at the tag).`,
    defaultVersion,
    supportedVersions: () => [...TGI_VERSIONS],
    controls: CONTROLS,
    inventory: (version) => TGI_INVENTORIES[version as TgiVersion],
    serving: tgiServing(defaultVersion),
    translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
      const version = resolveVersion(name, displayName, context.version, TGI_VERSIONS, defaultVersion)
      const bad = checkCombo(name, displayName, version, combo, CORE_DIMENSION_VALUES)
      if (bad) return bad
      const controlled = applyControls(name, displayName, version, combo, CONTROLS)
      if (!controlled.ok) return controlled
      const p = plan(controlled.combo)
      if (!p.ok) return refusal(name, version, p.dimension, combo[p.dimension]!, p.reason)
      const notes = [...controlled.notes, ...p.notes, ...(context.model === undefined ? [`Replace ${MODEL_PLACEHOLDER} with the model id or path.`] : [])]
      return {
        ok: true,
        engine: name,
        version,
        argv: [...command, '--model-id', context.model ?? MODEL_PLACEHOLDER, ...p.argv],
        env: p.env,
        files: {},
        notes,
      }
    },
  }
}
