/**
 * The llama.cpp dimensions and legality rules this plugin adds to the kerneltune catalog, through
 * the core CatalogExtension contract (as a third-party engine plugin would). Values are
 * strings; each dimension's default is what llama-server does when the flag is absent.
 */
import type { CatalogExtension, Combo, DimensionSpec, LegalityRule } from '@kerneltune/core'
import { DEFAULTS, KV_CACHE_TYPES, QUANTIZED_KV_TYPES, SOURCE } from './facts.ts'

const ENGINES = ['llamacpp'] as const
const v = (id: string, description: string) => ({ id, description })
const numbers = (ids: readonly string[], what: string) => ids.map((id) => v(id, `${id} ${what}`))

const kvValues = KV_CACHE_TYPES.map((t) =>
  v(t, QUANTIZED_KV_TYPES.includes(t) ? `${t} (quantized; smaller cache, some accuracy loss)` : `${t} (unquantized)`),
)

export const LLAMACPP_DIMENSIONS: readonly DimensionSpec[] = [
  {
    id: 'threads',
    title: 'CPU threads',
    description: 'Threads for generation and batch processing (-t/--threads). auto lets llama.cpp pick the number of CPU cores.',
    values: [v('auto', 'llama.cpp default (hardware concurrency)'), ...numbers(['1', '2', '4', '8', '16', '32', '64'], 'threads')],
    defaultValue: DEFAULTS.threads,
    engines: ENGINES,
    quickValues: ['auto', '1', '2', '4'],
  },
  {
    id: 'batch_size',
    title: 'Logical batch size',
    description: 'Tokens submitted to llama_decode at once during prompt processing (-b/--batch-size).',
    values: numbers(['64', '128', '256', '512', '1024', '2048', '4096'], 'tokens'),
    defaultValue: DEFAULTS.batch_size,
    engines: ENGINES,
    quickValues: ['256', '512', '2048'],
  },
  {
    id: 'ubatch_size',
    title: 'Physical (micro) batch size',
    description: 'Tokens computed per graph evaluation (-ub/--ubatch-size); llama.cpp clamps it to the batch size.',
    values: numbers(['32', '64', '128', '256', '512', '1024', '2048'], 'tokens'),
    defaultValue: DEFAULTS.ubatch_size,
    engines: ENGINES,
    quickValues: ['128', '512'],
  },
  {
    id: 'flash_attn',
    title: 'Flash attention',
    description: "llama.cpp's fused attention kernel (-fa/--flash-attn on|off|auto).",
    values: [v('auto', 'on when the model and device support it'), v('on', 'always'), v('off', 'never')],
    defaultValue: DEFAULTS.flash_attn,
    engines: ENGINES,
  },
  {
    id: 'cache_type_k',
    title: 'K cache type',
    description: 'Data type of the attention key cache (-ctk/--cache-type-k).',
    values: kvValues,
    defaultValue: DEFAULTS.cache_type_k,
    engines: ENGINES,
    quickValues: ['f16', 'q8_0', 'q4_0'],
  },
  {
    id: 'cache_type_v',
    title: 'V cache type',
    description: 'Data type of the attention value cache (-ctv/--cache-type-v); quantized types need flash attention.',
    values: kvValues,
    defaultValue: DEFAULTS.cache_type_v,
    engines: ENGINES,
    quickValues: ['f16', 'q8_0', 'q4_0'],
  },
  {
    id: 'gpu_layers',
    title: 'GPU layers',
    description: 'Layers offloaded to the GPU (-ngl/--n-gpu-layers): a number, all, or auto (fit what memory allows).',
    values: [v('auto', 'fit as many as memory allows'), v('all', 'every layer'), ...numbers(['0', '8', '16', '32'], 'layers')],
    defaultValue: DEFAULTS.gpu_layers,
    engines: ENGINES,
  },
  {
    id: 'ctx_size',
    title: 'Context size',
    description: 'Context window in tokens (-c/--ctx-size); 0 uses the size the model was trained with.',
    values: [v('0', "the model's training context"), ...numbers(['512', '1024', '2048', '4096', '8192', '16384', '32768'], 'tokens')],
    defaultValue: DEFAULTS.ctx_size,
    engines: ENGINES,
    quickValues: ['0', '4096'],
  },
  {
    id: 'mmap',
    title: 'Memory-map the model',
    description: 'Map the GGUF into memory instead of reading it (part of --load-mode).',
    values: [v('on', 'mmap the file'), v('off', 'read the file into memory')],
    defaultValue: DEFAULTS.mmap,
    engines: ENGINES,
  },
  {
    id: 'mlock',
    title: 'Lock the model in RAM',
    description: 'Keep the weights resident so they are never swapped out (part of --load-mode).',
    values: [v('on', 'mlock the weights'), v('off', 'let the OS page them')],
    defaultValue: DEFAULTS.mlock,
    engines: ENGINES,
  },
]

const get = (combo: Combo, id: keyof typeof DEFAULTS): string => combo[id] ?? DEFAULTS[id]
const hasGpu = (vendor: string, kind: string) => kind !== 'cpu' && vendor !== 'cpu'

export const LLAMACPP_RULES: readonly LegalityRule[] = [
  {
    id: 'llamacpp.quantized-v-cache-needs-flash-attn',
    kind: 'illegal',
    reason: 'a quantized V cache requires flash attention; llama_init_from_model fails with flash_attn off',
    source: `${SOURCE}: src/llama-context.cpp ("quantized V cache requires flash_attn to be enabled")`,
    dimensions: ['cache_type_v', 'flash_attn'],
    violates: (combo) => QUANTIZED_KV_TYPES.includes(get(combo, 'cache_type_v')) && get(combo, 'flash_attn') === 'off',
  },
  {
    id: 'llamacpp.ubatch-above-batch',
    kind: 'prune',
    reason: 'llama.cpp clamps the micro-batch to the batch size, so ubatch_size above batch_size runs as ubatch_size = batch_size (a duplicate)',
    source: `${SOURCE}: src/llama-context.cpp (cparams.n_ubatch = min(n_batch, n_ubatch))`,
    dimensions: ['ubatch_size', 'batch_size'],
    violates: (combo) => Number(get(combo, 'ubatch_size')) > Number(get(combo, 'batch_size')),
  },
  {
    id: 'llamacpp.gpu-layers-without-gpu',
    kind: 'prune',
    reason: 'without a usable GPU llama.cpp ignores --n-gpu-layers, so any value other than 0 or auto duplicates gpu_layers = 0',
    source: `${SOURCE}: common/arg.cpp (warning "no usable GPU found, --gpu-layers option will be ignored")`,
    dimensions: ['gpu_layers'],
    violates: (combo, ctx) => !['0', 'auto'].includes(get(combo, 'gpu_layers')) && !hasGpu(ctx.hardware.vendor, ctx.hardware.kind),
  },
]

// No core dimensions: their defaults (flash_attn_v2, paged, cublas, ...) are CUDA-engine values llama.cpp
// cannot express, so enumerating them would leave no legal baseline. translate() still accepts the
// core keys llama.cpp has a switch for (see engine.ts); the search space is llama.cpp's own.
export const LLAMACPP_CATALOG_EXTENSION: CatalogExtension = { dimensions: LLAMACPP_DIMENSIONS, rules: LLAMACPP_RULES, coreDimensions: [] }
