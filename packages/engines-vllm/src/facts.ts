/**
 * What vLLM accepts, as data. Provenance (vllm-project/vllm, v0.11.x era; each file read at its own
 * commit): vllm/engine/arg_utils.py @ 99d7eb5d (CLI flags), vllm/config/compilation.py @ ee525ce4
 * (CompilationConfig fields, CUDAGraphMode, PassConfig names), vllm/attention/backends/registry.py
 * @ 79dbb68c (AttentionBackendEnum), vllm/envs.py (environment variables; commit not recorded).
 */

export const VLLM_VERSIONS = ['0.11'] as const

/** `--dtype` choices (ModelConfig.dtype); fp8 compute is not a dtype but `--quantization fp8`. */
export const DTYPES = ['auto', 'half', 'float16', 'bfloat16', 'float', 'float32'] as const

/** The `VLLM_ATTENTION_BACKEND` members this translator uses (AttentionBackendEnum). */
export const ATTENTION_BACKENDS = ['FLASH_ATTN', 'FLASHINFER', 'XFORMERS', 'FLEX_ATTENTION'] as const

/** CompilationConfig.mode: 0 NONE, 1 STOCK_TORCH_COMPILE, 2 DYNAMO_TRACE_ONCE, 3 VLLM_COMPILE. */
export const COMPILATION_MODE = { none: 0, vllmCompile: 3 } as const

/** CompilationConfig.cudagraph_mode (CUDAGraphMode). */
export const CUDAGRAPH_MODES = ['NONE', 'PIECEWISE', 'FULL', 'FULL_DECODE_ONLY', 'FULL_AND_PIECEWISE'] as const

/**
 * PassConfig fusion switches (names as of compilation.py @ ee525ce4; older releases called them
 * enable_fusion / enable_noop, so they are version-specific).
 */
export const AGGRESSIVE_PASSES = ['fuse_norm_quant', 'fuse_act_quant', 'fuse_attn_quant', 'eliminate_noops'] as const

/** Quantized-linear kernels that VLLM_DISABLED_KERNELS can switch off (MPLinearKernel selection). */
export const LINEAR_KERNELS = { marlin: 'MarlinLinearKernel', machete: 'MacheteLinearKernel' } as const
