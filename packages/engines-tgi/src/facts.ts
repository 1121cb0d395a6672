/**
 * What TGI accepts, as data. Provenance: huggingface/text-generation-inference @ db931fcf
 * (workspace version 3.3.6-dev0, 2026-01-08): launcher/src/main.rs (`struct Args`, the clap flags),
 * server/text_generation_server/models/globals.py and layers/attention/ (ATTENTION, PREFILL_CHUNKING),
 * layers/fp8.py (USE_CUTLASS_W8A8).
 */

export const TGI_VERSIONS = ['3.3'] as const

/** ATTENTION values and the KV block size each fixes (not user-settable). */
export const ATTENTION = { flashinfer: 'flashinfer', flashdecoding: 'flashdecoding', paged: 'paged' } as const
export const BLOCK_SIZE = { flashinfer: 1, flashdecoding: 256, paged: 16 } as const

/** `--cuda-graphs` default batch sizes; `0` turns graphs off. */
export const DEFAULT_CUDA_GRAPHS = '1,2,4,8,16,32'
