/**
 * What the CPU execution provider of each checked ONNX Runtime release accepts, as data, with where
 * each fact comes from. Unlike the CUDA and TensorRT facts (releases.ts, read from provider
 * libraries that are only a download), these are checked against the onnxruntime-node package
 * installed in this workspace: its binding (onnxruntime_binding.node) and its runtime
 * (libonnxruntime.so.1) ship inside the npm package, so a test reads both on every machine
 * (adapters/cpu-release.node.test.ts) and one that is upgraded without this file failing is impossible.
 *
 * Two layers accept options, and they fail differently:
 * - SessionOptions fields (graphOptimizationLevel, executionMode, intra/interOpNumThreads,
 *   enableCpuMemArena, enableMemPattern) are parsed by the binding, which throws on a wrong type
 *   or an unknown value ("'graphOptimizationLevel' is not supported: al"), but silently ignores a
 *   field it does not know (a misspelled field name has no effect).
 * - Session config entries (`extra.session`, AddSessionConfigEntry in the C API) take any key:
 *   ORT checks only the key's and value's length, so a misspelled key is accepted and does nothing.
 * So a misspelling can only be caught here: every name a translation emits must be one of these.
 */

/** Newest first. A release is listed only when its CPU facts were checked against its binaries. */
export const ORT_CPU_VERSIONS = ['1.30'] as const
export type OrtCpuVersion = (typeof ORT_CPU_VERSIONS)[number]

/** onnxruntime-node SessionOptions fields the CPU translation sets, and the values each takes. */
export const CPU_SESSION_OPTIONS = {
  graphOptimizationLevel: ['disabled', 'basic', 'extended', 'layout', 'all'],
  executionMode: ['sequential', 'parallel'],
  intraOpNumThreads: 'count',
  interOpNumThreads: 'count',
  enableCpuMemArena: 'boolean',
  enableMemPattern: 'boolean',
} as const
export type CpuSessionOption = keyof typeof CPU_SESSION_OPTIONS

/** The session config entries the CPU translation sets (onnxruntime_session_options_config_keys.h). */
export const CPU_CONFIG_KEYS = {
  intraOpSpinning: 'session.intra_op.allow_spinning',
  qdqMatMulNBitsAccuracyLevel: 'session.qdq_matmulnbits_accuracy_level',
} as const

export interface OrtCpuRelease {
  readonly version: OrtCpuVersion
  /** The onnxruntime-node release whose binaries were read. */
  readonly checked: string
  readonly sessionOptions: typeof CPU_SESSION_OPTIONS
  readonly configKeys: readonly string[]
  readonly evidence: readonly string[]
}

export const ORT_CPU_RELEASES: Readonly<Record<OrtCpuVersion, OrtCpuRelease>> = {
  '1.30': {
    version: '1.30',
    checked: '1.30.0',
    sessionOptions: CPU_SESSION_OPTIONS,
    configKeys: Object.values(CPU_CONFIG_KEYS),
    evidence: [
      'npm onnxruntime-node@1.30.0 dist/backend.js:50-53: InferenceSession options go unchanged to the binding\'s loadModel (no JavaScript validation)',
      'same package, bin/napi-v6/linux/x64/onnxruntime_binding.node (strings; source js/node/src/session_options_helper.cc): "\'graphOptimizationLevel\' is not supported: " over the names disabled, basic, extended, layout, all; "\'executionMode\' is not supported: " over sequential, parallel; "\'intraOpNumThreads\' is invalid: " (a whole number 0 to 4294967295, 0 letting ORT choose); "sessionOptions.enableCpuMemArena must be a boolean value."; "sessionOptions.enableMemPattern must be a boolean value."; "sessionOptions.extra value must be a string in Node.js binding."',
      'same package, bin/napi-v6/linux/x64/libonnxruntime.so.1 (strings): session.intra_op.allow_spinning, session.qdq_matmulnbits_accuracy_level, and "MatMulNBits accuracy level must be between 0 and 4"',
      'include/onnxruntime/core/session/onnxruntime_session_options_config_keys.h (stored copy; the v1.30.0 tag is not stored): "When converting DQ + MatMul -> MatMulNBits, the accuracy level of the MatMulNBits is controlled by this option ... If not provided, default is 4" (kOrtSessionOptionsQDQMatMulNBitsAccuracyLevel). A model that already holds MatMulNBits nodes takes its accuracy level from their accuracy_level attribute (contrib_ops/cpu/quantization/matmul_nbits.cc GetAccuracyLevel), so the measurement backend sets that attribute as well',
      'measured with onnxruntime-node 1.30.0 on this machine (adapters/cpu-release.node.test.ts): an unknown SessionOptions field and an unknown session config key are accepted without an error',
    ],
  },
}
