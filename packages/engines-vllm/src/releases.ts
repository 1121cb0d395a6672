/**
 * What each supported vLLM release accepts, as data with its evidence. Every fact comes from
 * /work/shared/reference/engines/VERSIONS.md (section numbers below); where that file says "not
 * verified" the translator takes the conservative side: it emits nothing it cannot vouch for and
 * refuses instead, naming the release where the choice is known to work.
 *
 * The releases run from v0.11.2 (still in wide use, the last with XFORMERS) to v0.32.0 (the
 * newest with evidence). A release between two of them is refused rather than guessed at.
 */
import type { EngineInventory, InventoryEntry } from '@kerneltune/core'

/** Newest first. */
export const VLLM_VERSIONS = ['0.32.0', '0.13.0', '0.12.0', '0.11.2'] as const
export type VllmVersion = (typeof VLLM_VERSIONS)[number]

/**
 * The one default release: the engine's, and the one `planVllm` callers (the Triton vllm backend)
 * fall back to. The newest release with evidence.
 */
export const VLLM_DEFAULT_VERSION: VllmVersion = VLLM_VERSIONS[0]

export interface VllmRelease {
  readonly version: VllmVersion
  /**
   * How the attention backend is chosen: the `VLLM_ATTENTION_BACKEND` variable (read up to
   * v0.14, no longer read from v0.15) or the `--attention-backend` flag (from v0.13.0).
   */
  readonly attentionBy: 'env' | 'flag'
  /** The AttentionBackendEnum members this translator may name at this release. */
  readonly backends: readonly string[]
  /**
   * How the FlashAttention version is chosen: `VLLM_FLASH_ATTN_VERSION` (2|3), or
   * `AttentionConfig.flash_attn_version` through `--attention-config`.
   */
  readonly flashAttnVersionBy: 'env' | 'attention-config'
  /** The PassConfig switches `fusion_strategy: aggressive` turns on (names changed in v0.13.0). */
  readonly aggressivePasses: readonly string[]
  /** Where the facts of this release come from. */
  readonly evidence: readonly string[]
}

const FLASH_ATTN_ONLY_NOTE = 'VERSIONS.md §1.2'

/** What a release changed since the one before it; its evidence is its own, complete list. */
type ReleaseChange = Partial<Omit<VllmRelease, 'version' | 'evidence'>> & Pick<VllmRelease, 'evidence'>

/** A release as the one before it with `change` applied: each release states only what moved. */
const after = (prev: VllmRelease, version: VllmVersion, change: ReleaseChange): VllmRelease => ({ ...prev, ...change, version })

const V0_11_2: VllmRelease = {
  version: '0.11.2',
  attentionBy: 'env',
  backends: ['FLASH_ATTN', 'FLASHINFER', 'XFORMERS', 'FLEX_ATTENTION'],
  flashAttnVersionBy: 'env',
  aggressivePasses: ['enable_fusion', 'enable_attn_fusion', 'enable_noop'],
  evidence: [
    '§1.1: VLLM_ATTENTION_BACKEND and VLLM_FLASH_ATTN_VERSION (2|3) are read; --attention-backend does not exist before v0.13.0',
    `${FLASH_ATTN_ONLY_NOTE}: docs@v0.11.2 vllm/attention/backends/registry.py lists FLASH_ATTN, XFORMERS, FLASHINFER (TORCH_SDPA is ViT-only); FLEX_ATTENTION from the 0.11.x registry @ 79dbb68c (vllm.json)`,
    '§1.3: CompilationMode (`mode`) at docs@v0.11.2; cudagraph_mode NONE/PIECEWISE/FULL from v0.11.0',
    '§1.4: old PassConfig names (enable_fusion, enable_attn_fusion, enable_noop), which last through v0.11.x: PR #29646 renamed them after v0.11.2 was out (vLLM 0.11.2 was being built downstream by 2025-11-26, llm-d PR #461; #29646\'s review threads run 2025-11-29 to 2025-12-02), and v0.12.0 already has the new names (see that release)',
  ],
}

const V0_12_0 = after(V0_11_2, '0.12.0', {
  // XFORMERS at v0.12.0 is not verified (the release notes announce "V0 deprecations including
  // xformers backend"), so it is not offered.
  backends: V0_11_2.backends.filter((b) => b !== 'XFORMERS'),
  // The PassConfig rename (PR #29646) is already in v0.12.0: its vllm/config/vllm.py builds the
  // -O levels from the new names, and the old ones are only deprecated aliases that log a
  // warning (VERSIONS.md §1.4, as corrected, puts the rename in v0.12.0 too).
  aggressivePasses: ['fuse_norm_quant', 'fuse_act_quant', 'fuse_attn_quant', 'eliminate_noops'],
  evidence: [
    '§1.1: VLLM_ATTENTION_BACKEND is read; PR #26315 (--attention-backend) merged after v0.12.0',
    '§1.2: registry at v0.12.0 not verified; XFORMERS left out (release notes: "V0 deprecations including xformers backend")',
    '§1.3: cudagraph_mode, `mode`; -O0..-O3 new in v0.12.0 (not used)',
    'vllm/config/vllm.py at v0.12.0 (docs.vllm.ai/en/v0.12.0/api/vllm/config/vllm/, which prints that file at the tag; the page shows no line numbers): OPTIMIZATION_LEVEL_00..02 set pass_config "eliminate_noops", "fuse_norm_quant", "fuse_act_quant", "fuse_attn_quant" (and fuse_allreduce_rms, enable_sp, fuse_gemm_comms)',
    'PR #29646 "[Core] Rename PassConfig flags as per RFC #27995": enable_fusion, enable_attn_fusion and enable_noop stay as deprecated aliases that log a warning, so the new names are the ones to write (VERSIONS.md §1.4 row v0.12.0 says the same since its correction of 2026-11-27)',
  ],
})

const V0_13_0 = after(V0_12_0, '0.13.0', {
  attentionBy: 'flag',
  flashAttnVersionBy: 'attention-config',
  evidence: [
    '§0, §1.1: --attention-backend added and VLLM_ATTENTION_BACKEND deprecated in v0.13.0 (PR #26315); AttentionConfig.flash_attn_version: Literal[2, 3] (docs@v0.13.0 config/attention)',
    '§1.2: docs@v0.13.0 registry has FLASH_ATTN and no XFORMERS',
    '§1.4: PassConfig names fuse_norm_quant, fuse_act_quant, fuse_attn_quant, eliminate_noops (PR #29646, already in v0.12.0: see that release); later releases forbid unknown keys',
  ],
})

const V0_32_0 = after(V0_13_0, '0.32.0', {
  // The v0.18.2–v0.32.0 fusions table lists fuse_attn_quant (and ROCm/all-reduce passes); the
  // other renamed switches are not listed there, so they are not emitted.
  aggressivePasses: ['fuse_attn_quant'],
  evidence: [
    '§1.1: VLLM_ATTENTION_BACKEND is no longer read from v0.15 (PR #32812); --attention-backend is the way (docs@v0.25.0); flash_attn_version: Literal[2, 3, 4]',
    '§1.2: docs@v0.32.0 vllm/v1/attention/backends/registry.py lists FLASH_ATTN',
    '§1.4: docs@v0.32.0 design/fusions lists fuse_attn_quant; PassConfig and CompilationConfig forbid unknown keys (extra="forbid")',
  ],
})

export const VLLM_RELEASES: Readonly<Record<VllmVersion, VllmRelease>> = { '0.11.2': V0_11_2, '0.12.0': V0_12_0, '0.13.0': V0_13_0, '0.32.0': V0_32_0 }

/** The release facts of a supported version. */
export function vllmRelease(version: string): VllmRelease {
  return VLLM_RELEASES[version as VllmVersion]
}

/** The oldest release that offers an attention backend, or undefined. */
export function releaseWithBackend(backend: string): VllmVersion | undefined {
  return VLLM_VERSIONS.find((v) => VLLM_RELEASES[v].backends.includes(backend))
}

/** `--dtype` choices (ModelDType, verified at v0.9.2/v0.10.0; later releases not verified). */
export const DTYPES = ['auto', 'half', 'float16', 'bfloat16', 'float', 'float32'] as const

const flag = (e: InventoryEntry): InventoryEntry => e
const SWITCH = flag({ type: 'bool', takesValue: false })

/**
 * The inventory of a release: the flags, variables and config keys this translator may emit
 * there, each with the values that release accepts.
 */
export function vllmInventory(version: string): EngineInventory {
  const r = vllmRelease(version)
  const flags: Record<string, InventoryEntry> = {
    '--dtype': { choices: DTYPES },
    '--quantization': { choices: ['fp8'] },
    '--enable-chunked-prefill': SWITCH,
    '--no-enable-chunked-prefill': SWITCH,
    '--compilation-config': { type: 'json' },
  }
  const env: Record<string, InventoryEntry> = {}
  if (r.attentionBy === 'flag') flags['--attention-backend'] = { choices: r.backends }
  else env.VLLM_ATTENTION_BACKEND = { choices: r.backends }
  if (r.flashAttnVersionBy === 'attention-config') flags['--attention-config'] = { type: 'json' }
  else env.VLLM_FLASH_ATTN_VERSION = { choices: ['2', '3'] }
  const configKeys: Record<string, readonly string[]> = {
    '--compilation-config': ['mode', 'cudagraph_mode', 'pass_config', ...r.aggressivePasses.map((p) => `pass_config.${p}`)],
    ...(r.flashAttnVersionBy === 'attention-config' ? { '--attention-config': ['flash_attn_version'] } : {}),
  }
  return { flags, env, configKeys, evidence: r.evidence }
}

/** CompilationConfig.mode: 0 NONE, 1 STOCK_TORCH_COMPILE, 2 DYNAMO_TRACE_ONCE, 3 VLLM_COMPILE (§1.3). */
export const COMPILATION_MODE = { none: 0, vllmCompile: 3 } as const
