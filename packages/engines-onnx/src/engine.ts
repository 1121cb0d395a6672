/**
 * The ONNX Runtime engine plugin. ONNX Runtime is a library, not a server: a translation has no
 * command line, only session options and execution-provider options to pass to InferenceSession
 * (the CUDA EP's attention kernels included, through its sdpa_kernel option).
 */
import { applyControls, checkCombo, CORE_DIMENSION_VALUES, KerneltuneError, refusal, resolveVersion } from '@kerneltune/core/lite'
import type { Combo, CoreDimensionId, EngineInventory, EnginePlugin, TranslateContext, TranslateResult } from '@kerneltune/core'
import { CUDA_GRAPH_OPTION, firstReleaseWith, OPTIMIZATION_LEVEL, ORT_RELEASES, ORT_VERSIONS, PROVIDERS, SDPA_KERNEL, type OrtProvider, type OrtRelease, type OrtVersion, type SdpaKernel } from './releases.ts'
import { ortInventory } from './inventory.ts'
import { defaultRelease, onnxCpuEngine } from './cpu-engine.ts'
import type { OnnxEnginePlugin } from './plugin.ts'
import { ortFiles, ortTranslation } from './files.ts'

export interface OnnxEngineOptions {
  /**
   * The execution provider; `context.options.provider` overrides it between cuda and tensorrt.
   * Default cuda. 'cpu' gives the CPU EP's plugin (cpu-engine.ts), with its own releases.
   */
  readonly provider?: OrtProvider | 'cpu'
  /**
   * The onnxruntime-node version installed where the translation is applied (`ort.env.versions.node`,
   * `installedOrtVersion()` from the node entry): the default release when it is a supported one.
   */
  readonly installedVersion?: string
}

export { PROVIDER_FILE, SESSION_FILE } from './files.ts'

type Plan =
  | { ok: true; session: Record<string, string>; provider: Record<string, string>; notes: string[] }
  | { ok: false; dimension: CoreDimensionId; reason: string }

const no = (dimension: CoreDimensionId, reason: string): Plan => ({ ok: false, dimension, reason })

/**
 * The core dimensions each provider has a control for. The KV cache is the model's past/present
 * tensors and MatMul runs on cuBLAS (CUDA EP) or TensorRT tactics (TensorRT EP), neither
 * selectable, so those are left to the engine. The CUDA EP's attention ops take their kernels
 * from the sdpa_kernel option; the TensorRT EP uses TensorRT's own fused attention.
 */
export const ORT_CONTROLS: Readonly<Record<OrtProvider, readonly CoreDimensionId[]>> = {
  cuda: ['attention_backend', 'activation_dtype', 'fusion_strategy', 'cuda_graph'],
  tensorrt: ['activation_dtype', 'fusion_strategy', 'cuda_graph'],
}

/** What each sdpa_kernel bit selects, for notes and refusals. */
const KERNEL_NAMES: Readonly<Record<SdpaKernel, string>> = {
  flash: 'FlashAttention',
  efficient: 'memory-efficient (CUTLASS)',
  trtFused: 'TensorRT fused',
  cudnnFlash: 'cuDNN flash',
  math: 'unfused',
  trtFlash: 'TensorRT flash',
  trtCross: 'TensorRT cross',
  trtCausal: 'TensorRT causal',
  decoder: 'decoder masked (FasterTransformer)',
}

/**
 * Attention kernels go through the CUDA EP's `sdpa_kernel` bit mask, the exact selector: with it
 * non-zero the ORT_DISABLE_* variables are not read at all (attention_kernel_options.cc), and a
 * mask names the kernels that stay on instead of a list of ones to turn off, which a newer release
 * can outgrow (1.19 has TensorRT cross attention and 1.29 adds decoder attention, both left on by
 * the four variables this translator used to set).
 */
function attention(value: string, release: OrtRelease, provider: Record<string, string>, notes: string[]): Plan | undefined {
  const off = (keep: SdpaKernel) => release.sdpaKernels.filter((k) => k !== keep && k !== 'math').map((k) => KERNEL_NAMES[k]).join(', ')
  const ignored = 'With sdpa_kernel non-zero the ORT_DISABLE_*/ORT_ENABLE_* attention variables are ignored.'
  switch (value) {
    case 'flash_attn_v2':
      provider.sdpa_kernel = String(SDPA_KERNEL.flash)
      notes.push(`sdpa_kernel=${SDPA_KERNEL.flash} (FLASH_ATTENTION) keeps ONNX Runtime's FlashAttention kernels and turns the other fused kernels of ${release.checked} off (${off('flash')}); where FlashAttention cannot run (it needs sm_80+ and fp16/bf16) the op falls back to the unfused path, which the mask cannot turn off ("MATH=0 is ignored."), or fails if it has none. The mask also drops the packed-QKV minimum sequence length for FlashAttention from 513 to 0. ${ignored}`)
      return undefined
    case 'native':
      provider.sdpa_kernel = String(SDPA_KERNEL.math)
      notes.push(`sdpa_kernel=${SDPA_KERNEL.math} (MATH) turns every fused attention kernel of ${release.checked} off (${off('math')}), leaving the unfused path of ops that have one; an op without one fails (1.29.0: "PagedAttention requires FlashAttention"). ${ignored}`)
      return undefined
    default:
      return no('attention_backend', `the CUDA EP's attention kernels in ${release.checked} are ${release.sdpaKernels.map((k) => KERNEL_NAMES[k]).join(', ')}, selected with the sdpa_kernel bit mask; none of them is ${value}`)
  }
}

function plan(v: Partial<Record<CoreDimensionId, string>>, ep: OrtProvider, release: OrtRelease): Plan {
  const session: Record<string, string> = {}
  const provider: Record<string, string> = {}
  const notes: string[] = []

  if (v.attention_backend !== undefined) {
    const refused = attention(v.attention_backend, release, provider, notes)
    if (refused) return refused
  }
  switch (v.activation_dtype) {
    case 'fp16':
      if (ep === 'tensorrt') provider.trt_fp16_enable = '1'
      else notes.push('The CUDA EP computes in the dtype the model was exported in: export the ONNX model in fp16.')
      break
    case 'bf16':
      if (ep === 'tensorrt') {
        if (!release.providerOptions.tensorrt.includes('trt_bf16_enable')) {
          const at = firstReleaseWith('tensorrt', 'trt_bf16_enable')
          return no('activation_dtype', `the TensorRT EP of ONNX Runtime ${release.checked} has no trt_bf16_enable${at ? `; it works from ${at} (checked at ${ORT_RELEASES[at].checked})` : ''}, or export a bf16 model and use the CUDA EP`)
        }
        provider.trt_bf16_enable = '1'
        notes.push('The TensorRT EP turns trt_bf16_enable off by itself below compute capability 8.0 (PR #24915).')
      } else notes.push('The CUDA EP computes in the dtype the model was exported in: export the ONNX model in bf16.')
      break
    case 'fp8_e4m3':
    case 'fp8_e5m2':
      return no('activation_dtype', 'ONNX Runtime has no provider option for fp8 activations; fp8 exists only as Q/DQ nodes inside the model')
  }
  if (v.fusion_strategy !== undefined) {
    session.graph_optimization_level = OPTIMIZATION_LEVEL[v.fusion_strategy as keyof typeof OPTIMIZATION_LEVEL]
  }
  switch (v.cuda_graph) {
    case 'off':
      provider[CUDA_GRAPH_OPTION[ep]] = '0'
      break
    case 'per-shape':
      provider[CUDA_GRAPH_OPTION[ep]] = '1'
      notes.push('A captured graph replays one fixed set of input shapes and buffer addresses; use one session per shape.')
      break
    case 'dynamic':
      return no('cuda_graph', 'ONNX Runtime captures one CUDA graph per fixed input shape and binding address; dynamic-shape graphs cannot be expressed')
  }
  return { ok: true, session, provider, notes }
}

export type { OnnxEnginePlugin } from './plugin.ts'

function providerOf(name: string, value: unknown): OrtProvider {
  if (typeof value === 'string' && value in PROVIDERS) return value as OrtProvider
  throw new KerneltuneError('INVALID_INPUT', `ONNX Runtime provider ${String(value)} is not supported; supported providers: ${Object.keys(PROVIDERS).join(', ')}`, { plugin: name })
}

/**
 * Creates the ONNX Runtime engine plugin.
 *
 * @example
 * ```ts
 * onnxEngine().translate({ fusion_strategy: 'aggressive', cuda_graph: 'per-shape' })
 * // files: session_options.json { graph_optimization_level: 'ORT_ENABLE_ALL' },
 * //        provider_options.json { providers: ['CUDAExecutionProvider'], provider_options: [{ enable_cuda_graph: '1' }] }
 * ```
 */
export function onnxEngine(options: OnnxEngineOptions = {}): OnnxEnginePlugin {
  if (options.provider === 'cpu') return onnxCpuEngine(options.installedVersion)
  const name = 'onnx'
  const displayName = 'ONNX Runtime'
  const defaultVersion = defaultRelease(ORT_VERSIONS, options.installedVersion)
  const defaultProvider = providerOf(name, options.provider ?? 'cuda')
  return {
    name,
    kind: 'engine',
    apiVersion: 1,
    displayName,
    description: `ONNX Runtime session and CUDA/TensorRT execution-provider options (releases ${ORT_VERSIONS.join(', ')}).`,
    defaultVersion,
    supportedVersions: () => [...ORT_VERSIONS],
    controls: ORT_CONTROLS[defaultProvider],
    inventory: (version) => (version in ORT_RELEASES ? ortInventory(ORT_RELEASES[version as OrtVersion]) : undefined),
    translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
      const version = resolveVersion(name, displayName, context.version, ORT_VERSIONS, defaultVersion) as OrtVersion
      const ep = providerOf(name, context.options?.provider ?? defaultProvider)
      const bad = checkCombo(name, displayName, version, combo, CORE_DIMENSION_VALUES)
      if (bad) return bad
      const controlled = applyControls(name, displayName, version, combo, ORT_CONTROLS[ep])
      if (!controlled.ok) return controlled
      const p = plan(controlled.combo, ep, ORT_RELEASES[version])
      if (!p.ok) return refusal(name, version, p.dimension, combo[p.dimension]!, p.reason)
      const notes = ['ONNX Runtime is a library: pass these options to InferenceSession (no command line).', ...controlled.notes, ...p.notes]
      return ortTranslation(name, version, ortFiles(p.session, PROVIDERS[ep], p.provider), notes)
    },
  }
}
