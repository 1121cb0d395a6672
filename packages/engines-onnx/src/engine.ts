/**
 * The ONNX Runtime engine plugin. ONNX Runtime is a library, not a server: a translation has no
 * command line, only session options and execution-provider options to pass to InferenceSession.
 */
import { CORE_DIMENSION_VALUES, KerneltuneError, type Combo, type CoreDimensionId, type EnginePlugin, type TranslateContext, type TranslateResult } from '@kerneltune/core'
import { CUDA_GRAPH_OPTION, OPTIMIZATION_LEVEL, ORT_VERSIONS, PROVIDERS, type OrtProvider } from './facts.ts'
import { applyControls, checkCombo, refusal, resolveVersion } from '@kerneltune/core'

export interface OnnxEngineOptions {
  /** The execution provider; `context.options.provider` overrides it. Default cuda. */
  readonly provider?: OrtProvider
}

export const SESSION_FILE = 'session_options.json'
export const PROVIDER_FILE = 'provider_options.json'

type Plan =
  | { ok: true; session: Record<string, string>; provider: Record<string, string>; notes: string[] }
  | { ok: false; dimension: CoreDimensionId; reason: string }

const no = (dimension: CoreDimensionId, reason: string): Plan => ({ ok: false, dimension, reason })

function plan(v: Partial<Record<CoreDimensionId, string>>, ep: OrtProvider): Plan {
  const session: Record<string, string> = {}
  const provider: Record<string, string> = {}
  const notes: string[] = []

  if (v.attention_backend !== undefined) {
    return no('attention_backend', "ONNX Runtime has no attention selector: the graph's contrib ops (MultiHeadAttention, GroupQueryAttention) pick their kernels; leave attention_backend out")
  }
  switch (v.kv_layout) {
    case 'contiguous':
      notes.push('The KV cache is contiguous past/present tensors in the model inputs and outputs.')
      break
    case 'paged':
    case 'chunked':
      return no('kv_layout', 'ONNX Runtime keeps the KV cache as contiguous past/present model tensors; there is no paged cache or chunked prefill option')
  }
  switch (v.matmul_path) {
    case 'cublas':
      if (ep === 'tensorrt') return no('matmul_path', 'the TensorRT EP picks GEMM kernels from TensorRT tactics; tactic sources can add cuBLAS but cannot force it')
      notes.push('The CUDA EP runs MatMul on cuBLAS/cuBLASLt.')
      break
    case 'cutlass':
    case 'triton':
    case 'machete':
      return no('matmul_path', `ONNX Runtime has no option selecting ${v.matmul_path} GEMMs (the CUDA EP uses cuBLAS; the TensorRT EP uses TensorRT tactics)`)
  }
  switch (v.activation_dtype) {
    case 'fp16':
      if (ep === 'tensorrt') provider.trt_fp16_enable = '1'
      else notes.push('The CUDA EP computes in the dtype the model was exported in: export the ONNX model in fp16.')
      break
    case 'bf16':
      if (ep === 'tensorrt') return no('activation_dtype', 'trt_bf16_enable is not in the TensorRT EP option set validated here (it depends on the ORT release); export a bf16 model and use the CUDA EP')
      notes.push('The CUDA EP computes in the dtype the model was exported in: export the ONNX model in bf16.')
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

/** The ONNX Runtime plugin; its translate answers synchronously. */
export interface OnnxEnginePlugin extends EnginePlugin {
  translate(combo: Combo, context?: TranslateContext): TranslateResult
}

// The graph's contrib ops pick attention kernels and own the KV cache (its layout is the model's);
// the CUDA EP runs MatMul on cuBLAS and the TensorRT EP on TensorRT tactics, neither selectable.
const CONTROLS = ['activation_dtype', 'fusion_strategy', 'cuda_graph'] as const

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
  const name = 'onnx'
  const displayName = 'ONNX Runtime'
  const defaultVersion = ORT_VERSIONS[0]
  return {
    name,
    kind: 'engine',
    apiVersion: 1,
    displayName,
    description: 'ONNX Runtime session and CUDA/TensorRT execution-provider options (1.2x-era option set).',
    defaultVersion,
    supportedVersions: () => [...ORT_VERSIONS],
    controls: CONTROLS,
    translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
      const version = resolveVersion(name, displayName, context.version, ORT_VERSIONS, defaultVersion)
      const ep = context.options?.provider ?? options.provider ?? 'cuda'
      if (!(typeof ep === 'string' && ep in PROVIDERS)) {
        throw new KerneltuneError('INVALID_INPUT', `ONNX Runtime provider ${String(ep)} is not supported; supported providers: ${Object.keys(PROVIDERS).join(', ')}`, { plugin: name })
      }
      const bad = checkCombo(name, displayName, version, combo, CORE_DIMENSION_VALUES)
      if (bad) return bad
      const controlled = applyControls(name, displayName, version, combo, CONTROLS)
      if (!controlled.ok) return controlled
      const p = plan(controlled.combo, ep as OrtProvider)
      if (!p.ok) return refusal(name, version, p.dimension, combo[p.dimension]!, p.reason)
      const files: Record<string, string> = {}
      if (Object.keys(p.session).length > 0) files[SESSION_FILE] = JSON.stringify(p.session, null, 2) + '\n'
      files[PROVIDER_FILE] = JSON.stringify({ providers: [PROVIDERS[ep as OrtProvider]], provider_options: [p.provider] }, null, 2) + '\n'
      return {
        ok: true,
        engine: name,
        version,
        argv: [],
        env: {},
        files,
        notes: ['ONNX Runtime is a library: pass these options to InferenceSession (no command line).', ...controlled.notes, ...p.notes],
      }
    },
  }
}
