/**
 * @module @kerneltune/engines-onnx
 * Translates a kerneltune catalog combination into ONNX Runtime session options
 * (graph_optimization_level) and CUDA or TensorRT execution-provider options (the CUDA EP's
 * attention kernels through its sdpa_kernel bit mask), or refuses with the dimension, the value and why. Releases
 * 1.29 and 1.19, each checked against the provider libraries of that release. With
 * `provider: 'cpu'`, the CPU execution provider's session options (threads, execution mode, memory
 * arena and pattern, spinning, MatMulNBits accuracy), checked against the installed onnxruntime-node.
 *
 * @example
 * ```ts
 * import { onnxEngine } from '@kerneltune/engines-onnx'
 * const r = onnxEngine({ provider: 'tensorrt' }).translate({ activation_dtype: 'fp16', cuda_graph: 'per-shape' })
 * if (r.ok) console.log(r.files['provider_options.json'])
 * ```
 */
export { onnxEngine, type OnnxEnginePlugin, ORT_CONTROLS, SESSION_FILE, PROVIDER_FILE, type OnnxEngineOptions } from './engine.ts'
export { ATTENTION_ENV, ORT_RELEASES, ORT_VERSIONS, PROVIDERS, SDPA_KERNEL, type OrtProvider, type OrtRelease, type OrtVersion, type SdpaKernel } from './releases.ts'
export { defaultRelease, onnxCpuEngine, ORT_CPU_CONTROLS } from './cpu-engine.ts'
export { CPU_PROVIDER, cpuSession, ORT_CPU_DEFAULTS, ORT_CPU_DIMENSIONS, ORT_CPU_EXTENSION, ortCpuInventory, type OrtCpuDimension } from './cpu.ts'
export { onnxComboLabel, onnxSweepExtension, onnxSweepSpace, onnxWithoutDefaults, type OnnxSweepSpace } from './sweep-space.ts'
export { CPU_CONFIG_KEYS, CPU_SESSION_OPTIONS, ORT_CPU_RELEASES, ORT_CPU_VERSIONS, type CpuSessionOption, type OrtCpuRelease, type OrtCpuVersion } from './cpu-release.ts'
