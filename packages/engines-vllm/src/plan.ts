/**
 * Maps a combination onto vLLM engine arguments (snake_case EngineArgs names, so the same plan can
 * be rendered as CLI flags or as the Triton vLLM backend's model.json) and environment variables,
 * for one release: what each release reads is in releases.ts.
 */
import type { CoreDimensionId } from '@kerneltune/core'
import { COMPILATION_MODE, releaseWithBackend, type VllmRelease } from './releases.ts'

/** The EngineArgs fields this translator sets. */
export interface VllmEngineArgs {
  /** `--attention-backend` (v0.13.0 on). */
  attention_backend?: string
  /** `--attention-config` (v0.13.0 on): only the FlashAttention version is set. */
  attention_config?: { flash_attn_version: number }
  dtype?: 'float16' | 'bfloat16'
  quantization?: 'fp8'
  enable_chunked_prefill?: boolean
  compilation_config?: {
    mode?: number
    cudagraph_mode?: string
    pass_config?: Record<string, boolean>
  }
}

export type VllmPlan =
  | { ok: true; args: VllmEngineArgs; env: Record<string, string>; notes: string[] }
  | { ok: false; dimension: CoreDimensionId; reason: string }

type Values = Partial<Record<CoreDimensionId, string>>

const no = (dimension: CoreDimensionId, reason: string): VllmPlan => ({ ok: false, dimension, reason })

const BACKEND: Readonly<Record<string, string>> = { flash_attn_v2: 'FLASH_ATTN', flash_attn_v3: 'FLASH_ATTN', flashinfer: 'FLASHINFER', xformers: 'XFORMERS', native: 'FLEX_ATTENTION' }

/**
 * Plans a combination whose keys and values are already known to be core ones, for `release`.
 * The release has no default here: callers pass the one they target, falling back to
 * VLLM_DEFAULT_VERSION (releases.ts), the single default of the engine and of the Triton backend.
 */
export function planVllm(v: Values, release: VllmRelease): VllmPlan {
  const args: VllmEngineArgs = {}
  const env: Record<string, string> = {}
  const notes: string[] = []
  const fp8 = v.activation_dtype === 'fp8_e4m3'

  if (v.attention_backend === 'paged_attention') {
    return no('attention_backend', 'vLLM V1 has no separate PagedAttention backend: every V1 backend reads the paged KV cache, and the legacy V0 PagedAttention kernels cannot be selected')
  }
  const backend = v.attention_backend === undefined ? undefined : BACKEND[v.attention_backend]!
  if (backend !== undefined) {
    if (!release.backends.includes(backend)) {
      const where = releaseWithBackend(backend)
      return no('attention_backend', `vLLM ${release.version} has no ${backend} attention backend this translator can vouch for${where ? `; it works with vLLM ${where}` : ''}${backend === 'XFORMERS' ? ' (XFORMERS was removed by v0.13.0)' : ''}`)
    }
    if (release.attentionBy === 'flag') args.attention_backend = backend
    else env.VLLM_ATTENTION_BACKEND = backend
    if (backend === 'FLASH_ATTN') {
      const fa = v.attention_backend === 'flash_attn_v2' ? 2 : 3
      if (release.flashAttnVersionBy === 'env') env.VLLM_FLASH_ATTN_VERSION = String(fa)
      else args.attention_config = { flash_attn_version: fa }
      if (fa === 3) notes.push('FlashAttention 3 needs a Hopper GPU (sm_90).')
    }
    if (backend === 'FLEX_ATTENTION') notes.push('native attention maps to FLEX_ATTENTION (PyTorch FlexAttention); TORCH_SDPA serves vision encoders only.')
    if (release.attentionBy === 'env') notes.push(`vLLM ${release.version} reads the attention backend from VLLM_ATTENTION_BACKEND (--attention-backend exists from v0.13.0).`)
  }

  switch (v.kv_layout) {
    case 'contiguous':
      return no('kv_layout', 'vLLM always keeps the KV cache in paged blocks (a block table); a contiguous cache cannot be expressed')
    case 'paged':
      args.enable_chunked_prefill = false
      break
    case 'chunked':
      args.enable_chunked_prefill = true
      notes.push('Chunked prefill runs on top of the paged cache; --max-num-batched-tokens sets the chunk budget.')
      break
  }

  switch (v.matmul_path) {
    case 'cublas':
      if (fp8) return no('matmul_path', 'vLLM runs fp8 linear layers through CUTLASS scaled_mm; forcing cuBLAS for quantized weights cannot be expressed')
      notes.push('cuBLAS is what unquantized fp16/bf16 weights use (torch.matmul); use an unquantized checkpoint.')
      break
    case 'cutlass':
      if (!fp8) return no('matmul_path', 'vLLM reaches CUTLASS GEMMs only through fp8/W8A8 quantization; with fp16/bf16 activations the GEMMs run on cuBLAS (set activation_dtype to fp8_e4m3)')
      notes.push('fp8 linear layers run on CUTLASS scaled_mm (inferred from the vLLM kernel layout, not verified from source).')
      break
    case 'machete':
      // Machete already ranks first among the mixed-precision kernels in the only order that was
      // read (v0.8 era), so disabling Marlin would only remove a fallback; forcing it means
      // disabling every kernel ranked before it in this release's order, which is not verified.
      return no('matmul_path', `Machete cannot be forced on vLLM ${release.version}: the mixed-precision kernel order and VLLM_DISABLED_KERNELS were read only for v0.8/v0.9-era code (VERSIONS.md §1.6, not verified for later releases). Where Machete can run (Hopper, a GPTQ/AWQ weight-only checkpoint, fp16/bf16 activations) vLLM already tries it first; use matmul_path cublas and such a checkpoint`)
    case 'triton':
      return no('matmul_path', `VLLM_USE_TRITON_AWQ, the switch to vLLM's Triton AWQ GEMMs, was read only in v0.9-era vllm/envs.py; its presence in vLLM ${release.version} is not verified (VERSIONS.md §1.6)`)
  }

  switch (v.activation_dtype) {
    case 'fp16':
      args.dtype = 'float16'
      break
    case 'bf16':
      args.dtype = 'bfloat16'
      break
    case 'fp8_e4m3':
      args.quantization = 'fp8'
      notes.push('--quantization fp8 quantizes weights to fp8 e4m3 and activations dynamically (needs sm_89 or newer for W8A8).')
      break
    case 'fp8_e5m2':
      return no('activation_dtype', 'vLLM has no e5m2 GEMM path: fp8 linear layers are e4m3, and e5m2 exists only as a KV-cache dtype (--kv-cache-dtype fp8_e5m2)')
  }

  const compilation: NonNullable<VllmEngineArgs['compilation_config']> = {}
  switch (v.fusion_strategy) {
    case 'none':
      compilation.mode = COMPILATION_MODE.none
      break
    case 'conservative':
      compilation.mode = COMPILATION_MODE.vllmCompile
      break
    case 'aggressive':
      compilation.mode = COMPILATION_MODE.vllmCompile
      compilation.pass_config = Object.fromEntries(release.aggressivePasses.map((p) => [p, true]))
      notes.push(`The aggressive fusion passes (${release.aggressivePasses.join(', ')}) fuse quantization into norms, activations or attention; they change little without fp8.`)
      break
  }

  switch (v.cuda_graph) {
    case 'off':
      compilation.cudagraph_mode = 'NONE'
      break
    case 'per-shape':
      compilation.cudagraph_mode = 'FULL'
      notes.push('FULL graphs are captured per batch size (--cudagraph-capture-sizes); the attention backend must support full-graph capture (not verified per backend).')
      break
    case 'dynamic':
      if (compilation.mode === COMPILATION_MODE.none) {
        return no('cuda_graph', 'piecewise CUDA graphs (the closest vLLM has to dynamic) split the torch.compile graph, so they need compilation mode 3; fusion_strategy none turns compilation off')
      }
      compilation.cudagraph_mode = 'PIECEWISE'
      notes.push('vLLM pads every batch to a captured size; PIECEWISE graphs (attention outside the graph) are the closest it has to dynamic shapes.')
      break
  }
  if (Object.keys(compilation).length > 0) args.compilation_config = compilation
  return { ok: true, args, env, notes }
}

/** Renders planned EngineArgs as `vllm serve` flags. */
export function argsToFlags(args: VllmEngineArgs): string[] {
  const out: string[] = []
  if (args.attention_backend) out.push('--attention-backend', args.attention_backend)
  if (args.attention_config) out.push('--attention-config', JSON.stringify(args.attention_config))
  if (args.dtype) out.push('--dtype', args.dtype)
  if (args.quantization) out.push('--quantization', args.quantization)
  if (args.enable_chunked_prefill !== undefined) out.push(args.enable_chunked_prefill ? '--enable-chunked-prefill' : '--no-enable-chunked-prefill')
  if (args.compilation_config) out.push('--compilation-config', JSON.stringify(args.compilation_config))
  return out
}
