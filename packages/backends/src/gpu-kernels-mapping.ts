/**
 * How a catalog combination becomes real work for `@kerneltune/gpu-kernels` (WGSL kernels run
 * through WebGPU). The kernels implement the decode GEMV of quantised LLM layers, so a
 * combination is measured as one decoder layer's projection GEMVs (Q, K, V, gate, up) at the
 * model's shapes, scaled down to fit small devices:
 *
 * - activation_dtype → weight format: fp16/bf16 → f16 weights; fp8_e4m3/fp8_e5m2 → q8_0 (the
 *   kernels have no fp8; q8_0 is their 8-bit format, so this measures the 8-bit byte stream).
 * - matmul_path → kernel configuration family (workgroup size, rows per workgroup, vector
 *   width, unroll): cublas → the kernels' default, cutlass/triton/machete → fixed alternatives
 *   below. These are stand-ins for the library's tiling choices, not those libraries.
 * - fusion_strategy → horizontal fusion of the projections: none → 5 GEMVs (q, k, v, gate, up);
 *   conservative → fused qkv + gate + up (3); aggressive → fused qkv + fused gate_up (2).
 * - attention_backend, kv_layout, cuda_graph and engine-specific dimensions have no counterpart
 *   in these kernels: combinations differing only in them run the same kernels, and every result
 *   says so in its notes.
 */
import type { Combo, ModelSpec, Workload } from '@kerneltune/core'

export const GPU_KERNELS_BACKEND = 'gpu-kernels'

export const MATMUL_PATH_CONFIGS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  cublas: { workgroupSize: 64, rowsPerWorkgroup: 1, vecWidth: 1, unroll: 1 },
  cutlass: { workgroupSize: 256, rowsPerWorkgroup: 4, vecWidth: 4, unroll: 1 },
  triton: { workgroupSize: 128, rowsPerWorkgroup: 2, vecWidth: 4, unroll: 2 },
  machete: { workgroupSize: 64, rowsPerWorkgroup: 8, vecWidth: 4, unroll: 1 },
}

export const UNEXERCISED_DIMENSIONS = ['attention_backend', 'kv_layout', 'cuda_graph'] as const
/** The dimensions that change which kernels run; runs report every other one as not measured. */
export const EXERCISED_DIMENSIONS = ['activation_dtype', 'matmul_path', 'fusion_strategy'] as const
/** Values that run the same kernels: both 16-bit dtypes are f16 weights, both fp8 ones q8_0. */
export const EQUIVALENT_VALUES = { activation_dtype: [['fp16', 'bf16'], ['fp8_e4m3', 'fp8_e5m2']] } as const

export interface GpuKernelsPlan {
  format: 'f16' | 'q8_0'
  config: Record<string, number>
  /** Projection name → GEMV problem (m activation rows, n outputs, k inputs). */
  gemvs: { name: string; m: number; n: number; k: number }[]
  notes: string[]
}

export interface ScaleLimits {
  /** Largest hidden size used; the model's is scaled down to it (default 512). */
  maxHidden?: number
  maxIntermediate?: number
  maxBatch?: number
}

const round32 = (x: number) => Math.max(32, Math.floor(x / 32) * 32)

/** The kernels one combination runs, for a model and workload. */
export function gpuKernelsProblem(combo: Combo, model: ModelSpec, workload: Workload, limits: ScaleLimits = {}): GpuKernelsPlan {
  const notes: string[] = []
  const hidden = model.hiddenDim ?? 4096
  const h = round32(Math.min(hidden, limits.maxHidden ?? 512))
  const ratio = model.numHeads && model.numKvHeads ? model.numKvHeads / model.numHeads : 1
  const kv = round32(h * ratio)
  const inter = round32(Math.min(model.intermediateDim ?? hidden * 4, limits.maxIntermediate ?? 2 * h))
  const m = Math.max(1, Math.min(workload.batch, limits.maxBatch ?? 8))
  if (h !== hidden) notes.push(`shapes scaled down: hidden ${hidden} → ${h}, kv ${kv}, intermediate ${inter}`)
  if (m !== workload.batch) notes.push(`batch ${workload.batch} capped to ${m} activation rows`)
  const dtype = combo.activation_dtype ?? 'fp16'
  const format = dtype.startsWith('fp8') ? 'q8_0' : 'f16'
  if (format === 'q8_0') notes.push(`${dtype}: measured with q8_0 weights (the kernels have no fp8)`)
  const path = combo.matmul_path ?? 'cublas'
  const config = { ...(MATMUL_PATH_CONFIGS[path] ?? MATMUL_PATH_CONFIGS.cublas!) }
  if (!MATMUL_PATH_CONFIGS[path]) notes.push(`matmul_path ${path} has no kernel configuration family here; the default configuration was used`)
  const g = (name: string, n: number) => ({ name, m, n, k: h })
  const fusion = combo.fusion_strategy ?? 'none'
  const gemvs = fusion === 'aggressive'
    ? [g('qkv', h + 2 * kv), g('gate_up', 2 * inter)]
    : fusion === 'conservative'
      ? [g('qkv', h + 2 * kv), g('gate', inter), g('up', inter)]
      : [g('q', h), g('k', kv), g('v', kv), g('gate', inter), g('up', inter)]
  const ignored = Object.keys(combo).filter((d) => !(EXERCISED_DIMENSIONS as readonly string[]).includes(d))
  if (ignored.length) notes.push(`not exercised by the WGSL kernels: ${ignored.join(', ')}`)
  return { format, config, gemvs, notes }
}
