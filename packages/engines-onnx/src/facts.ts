/**
 * What ONNX Runtime accepts, as data. Provenance (microsoft/onnxruntime, 1.2x-era option set;
 * commits not recorded): onnxruntime/core/providers/cuda/cuda_execution_provider_info.cc (CUDA EP
 * options), onnxruntime/core/providers/tensorrt/tensorrt_execution_provider_info.cc (TensorRT EP
 * options), include/onnxruntime/core/session/onnxruntime_c_api.h (GraphOptimizationLevel).
 * trt_bf16_enable is missing from the TensorRT EP file read, so it is not emitted; ORT_ENABLE_LAYOUT
 * exists only in newer headers, so it is not emitted either.
 */

/** The option set is of the 1.2x era; no exact release was recorded. */
export const ORT_VERSIONS = ['1.2x'] as const

export const PROVIDERS = { cuda: 'CUDAExecutionProvider', tensorrt: 'TensorrtExecutionProvider' } as const
export type OrtProvider = keyof typeof PROVIDERS

/** SessionOptions.graph_optimization_level per fusion strategy. */
export const OPTIMIZATION_LEVEL = { none: 'ORT_DISABLE_ALL', conservative: 'ORT_ENABLE_BASIC', aggressive: 'ORT_ENABLE_ALL' } as const

/** The provider option that turns CUDA graph capture on, per provider. */
export const CUDA_GRAPH_OPTION = { cuda: 'enable_cuda_graph', tensorrt: 'trt_cuda_graph_enable' } as const
