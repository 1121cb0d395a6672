/**
 * What each supported TGI release accepts, as data, with where each fact comes from.
 *
 * TGI is in maintenance mode (README of tag v3.3.7, line 2: "text-generation-inference is now in
 * maintenance mode."), and v3.3.7 is the one release whose source was read at its tag
 * (`dfb3fbe78e0d`, 2025-12-18; VERSIONS.md §2). Earlier 3.x tags were checked only for
 * PREFILL_CHUNKING, so they are not supported: a translation for them would emit names nobody read.
 */
import type { EngineInventory, InventoryEntry } from '@kerneltune/core'

/** Newest first; the first is the default. */
export const TGI_VERSIONS = ['3.3.7'] as const
export type TgiVersion = (typeof TGI_VERSIONS)[number]

/** ATTENTION values and the KV block size each fixes (globals.py L17 `_expected`, L38-46). */
export const ATTENTION = { flashinfer: 'flashinfer', flashdecoding: 'flashdecoding', paged: 'paged' } as const
export const BLOCK_SIZE = { flashinfer: 1, flashdecoding: 256, paged: 16 } as const

/**
 * The ATTENTION values with which the server keeps prefill chunking on. `Model.__init__` turns
 * `support_chunking` off, with a warning, for any other ATTENTION and when speculation is on:
 * server/text_generation_server/models/model.py at tag v3.3.7 (dfb3fbe78e0d), L73-90, the list at
 * L83 and the warning at L88 (quoted verbatim). v3.0.0 had only flashinfer and flashdecoding
 * (its L82 and L85); flashdecoding-ipex joined the list in v3.0.2 (git, model.py at each tag). This translator
 * never writes flashdecoding-ipex, but the refusal names every value the tag accepts.
 */
export const CHUNKING_ATTENTION: readonly string[] = [ATTENTION.flashinfer, ATTENTION.flashdecoding, 'flashdecoding-ipex']
export const CHUNKING_WARNING = 'Prefill chunking is only supported with `flashinfer` or `flashdecoding` or `flashdecoding-ipex` attention types.'
export const MODEL_PY = 'server/text_generation_server/models/model.py L73-90 at v3.3.7'

/** `--cuda-graphs` default batch sizes (main.rs L763-766); `0` turns graphs off. */
export const DEFAULT_CUDA_GRAPHS = '1,2,4,8,16,32'

/**
 * The 54 fields of the launcher's clap `struct Args` (launcher/src/main.rs), transcribed from the
 * reference inventory tgi.json (parsed at db931fcf, three weeks after the v3.3.7 tag, same
 * workspace version 3.3.6-dev0). The flags this translator emits were read at the tag itself.
 */
const FLAGS_3_3_7: Record<string, InventoryEntry> = {
  '--model-id': { type: 'str' },
  '--revision': { type: 'str' },
  '--validation-workers': { type: 'int' },
  '--sharded': { type: 'bool' },
  '--num-shard': { type: 'int' },
  '--quantize': { choices: ['awq', 'compressed-tensors', 'eetq', 'exl2', 'gptq', 'marlin', 'bitsandbytes', 'bitsandbytes-nf4', 'bitsandbytes-fp4', 'fp8'] },
  '--speculate': { type: 'int' },
  '--dtype': { choices: ['float16', 'bfloat16'] },
  '--kv-cache-dtype': { choices: ['fp8_e4m3fn', 'fp8_e5m2'] },
  '--trust-remote-code': { takesValue: false },
  '--max-concurrent-requests': { type: 'int' },
  '--max-best-of': { type: 'int' },
  '--max-stop-sequences': { type: 'int' },
  '--max-top-n-tokens': { type: 'int' },
  '--max-input-tokens': { type: 'int' },
  '--max-input-length': { type: 'int' },
  '--max-total-tokens': { type: 'int' },
  '--waiting-served-ratio': { type: 'float' },
  '--max-batch-prefill-tokens': { type: 'int' },
  '--max-batch-total-tokens': { type: 'int' },
  '--max-waiting-tokens': { type: 'int' },
  '--max-batch-size': { type: 'int' },
  '--cuda-graphs': { type: 'int', delimiter: ',' },
  '--hostname': { type: 'str' },
  '--port': { type: 'int' },
  '--prometheus-port': { type: 'int' },
  '--shard-uds-path': { type: 'str' },
  '--master-addr': { type: 'str' },
  '--master-port': { type: 'int' },
  '--huggingface-hub-cache': { type: 'str' },
  '--weights-cache-override': { type: 'str' },
  '--disable-custom-kernels': { takesValue: false },
  '--cuda-memory-fraction': { type: 'float' },
  '--rope-scaling': { choices: ['linear', 'dynamic'] },
  '--rope-factor': { type: 'float' },
  '--json-output': { takesValue: false },
  '--otlp-endpoint': { type: 'str' },
  '--otlp-service-name': { type: 'str' },
  '--cors-allow-origin': { type: 'str', list: true },
  '--api-key': { type: 'str' },
  '--watermark-gamma': { type: 'float' },
  '--watermark-delta': { type: 'float' },
  '--ngrok': { takesValue: false },
  '--ngrok-authtoken': { type: 'str' },
  '--ngrok-edge': { type: 'str' },
  '--tokenizer-config-path': { type: 'str' },
  '--disable-grammar-support': { takesValue: false },
  '--env': { takesValue: false },
  '--max-client-batch-size': { type: 'int' },
  '--lora-adapters': { type: 'str' },
  '--usage-stats': { choices: ['on', 'off', 'no-stack'] },
  '--payload-limit': { type: 'int' },
  '--enable-prefill-logprobs': { takesValue: false },
  '--graceful-termination-timeout': { type: 'int' },
}

/** Server environment read by text_generation_server (globals.py, layers/fp8.py at v3.3.7). */
const ENV_3_3_7: Record<string, InventoryEntry> = {
  ATTENTION: { choices: ['paged', 'flashdecoding', 'flashdecoding-ipex', 'flashinfer'] },
  PREFIX_CACHING: { choices: ['1', 'true', '0', 'false'] },
  PREFILL_CHUNKING: { choices: ['1', 'true', '0', 'false'] },
  USE_CUTLASS_W8A8: { choices: ['0', '1'] },
}

export const TGI_INVENTORIES: Readonly<Record<TgiVersion, EngineInventory>> = {
  '3.3.7': {
    flags: FLAGS_3_3_7,
    env: ENV_3_3_7,
    evidence: [
      'huggingface/text-generation-inference tag v3.3.7 (dfb3fbe78e0d): launcher/src/main.rs L406-446 enum Quantization, L629-631 Dtype, L634-637 --kv-cache-dtype, L763-766 --cuda-graphs ("Use \\"0\\" to disable."), L803-808 --disable-custom-kernels (the only fusion-like switch)',
      'v3.3.7 (dfb3fbe78e0d) server/text_generation_server/models/model.py L73-90: L73 `support_chunking = support_chunking and PREFILL_CHUNKING`, off with speculation (L75-81), and off when L83 `ATTENTION not in ["flashinfer", "flashdecoding", "flashdecoding-ipex"]`, warning L88 "Prefill chunking is only supported with `flashinfer` or `flashdecoding` or `flashdecoding-ipex` attention types." (L82-90)',
      'v3.3.7 server/text_generation_server/models/globals.py L11 PREFIX_CACHING, L15 PREFILL_CHUNKING (default "1"), L17 ATTENTION _expected, L38-46 block sizes; layers/fp8.py L51-57 USE_CUTLASS_W8A8',
      'full flag list: reference tgi.json, launcher struct Args parsed at db931fcf (workspace 3.3.6-dev0, 2026-01-08)',
    ],
  },
}
