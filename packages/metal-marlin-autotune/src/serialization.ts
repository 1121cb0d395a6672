/**
 * Export and load in the upstream JSON shape (§B.6). The export writes exactly the keys of
 * upstream's `export_config`; loading also accepts the guide's extra keys and its `"(2, 4)"` bit
 * keys, re-validates every config, and reports every invalid entry with its path.
 */
import { z } from 'zod'
import { formatIssues, isKerneltuneError } from '@kerneltune/core'
import { BATCH_STRATEGIES, BIT_WIDTHS, KERNEL_VARIANTS, SIMDGROUP_CONFIGS } from './constants.ts'
import { createKernelConfig, kernelConfigToDict, optimizedKey, type KernelConfig, type OptimizedConfig } from './kernel-config.ts'
import { parseBitKey, setEntry, type LookupTable } from './lookup.ts'

/** The JSON an export writes (key order as upstream). */
export interface ExportedConfig {
  device: string
  device_name: string
  device_family: string
  adaptation_enabled: boolean
  lookup_table: Record<string, Record<string, Record<string, Record<string, unknown>>>>
  adaptation_timings: Record<string, number[]>
  optimized_configs: Record<string, OptimizedConfig>
}

export interface TunerState {
  device: string
  device_name: string
  device_family: string
  adaptation_enabled: boolean
  lookup_table: LookupTable
  adaptation_timings: Map<string, number[]>
  optimized_configs: Map<string, OptimizedConfig>
  /** Present only when the file carried them (the guide's shape). */
  tile_size_mapping?: Record<number, number>
  simdgroup_mapping?: Record<number, number>
  adaptation_history_len?: number
}

export function toExported(state: TunerState): ExportedConfig {
  const lookup: ExportedConfig['lookup_table'] = {}
  for (const [batch, byHidden] of [...state.lookup_table].sort((a, b) => a[0] - b[0])) {
    const h: Record<string, Record<string, Record<string, unknown>>> = {}
    for (const [hidden, byBits] of [...byHidden].sort((a, b) => a[0] - b[0])) {
      h[String(hidden)] = Object.fromEntries([...byBits].map(([k, c]) => [k, kernelConfigToDict(c)]))
    }
    lookup[String(batch)] = h
  }
  return {
    device: state.device,
    device_name: state.device_name,
    device_family: state.device_family,
    adaptation_enabled: state.adaptation_enabled,
    lookup_table: lookup,
    adaptation_timings: Object.fromEntries(state.adaptation_timings),
    optimized_configs: Object.fromEntries(state.optimized_configs),
  }
}

const Mapping = z.record(z.string().regex(/^\d+$/, 'bit-width keys are whole numbers'), z.number().int().positive())

const OptimizedSchema = z.object({
  bit_width: z.union(BIT_WIDTHS.map((b) => z.literal(b))),
  batch_size: z.number().int().nonnegative(),
  hidden_dim: z.number().int().nonnegative(),
  kernel_variant: z.enum(KERNEL_VARIANTS),
  tile_size_m: z.number().int().positive(),
  tile_size_n: z.number().int().positive(),
  num_simdgroups: z.number().int().positive(),
  batch_strategy: z.enum(BATCH_STRATEGIES),
  expected_latency_ms: z.number(),
  throughput: z.number(),
})

const KernelConfigSchema = z.object({
  tile_size_m: z.number().optional(),
  tile_size_n: z.number().optional(),
  num_simdgroups: z.number().nullable().optional(),
  kernel_variant: z.string().optional(),
  batch_strategy: z.string().optional(),
  bit_width: z.number().optional(),
  kernel_name: z.string().nullable().optional(),
  simdgroups: z.number().nullable().optional(),
  use_fp32_acc: z.boolean().optional(),
}).strict()

const ExportSchema = z.looseObject({
  device: z.string().optional(),
  device_name: z.string().optional(),
  device_family: z.string().optional(),
  adaptation_enabled: z.boolean().optional(),
  lookup_table: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))).optional(),
  adaptation_timings: z.record(z.string(), z.array(z.number())).optional(),
  optimized_configs: z.record(z.string(), OptimizedSchema).optional(),
  tile_size_mapping: Mapping.optional(),
  simdgroup_mapping: Mapping.optional(),
  adaptation_history_len: z.number().int().positive().optional(),
  benchmark_count: z.number().int().nonnegative().optional(),
})

const isCount = (s: string) => /^\d+$/.test(s) && Number(s) > 0

function numericRecord(r: Record<string, number> | undefined): Record<number, number> | undefined {
  return r ? Object.fromEntries(Object.entries(r).map(([k, v]) => [Number(k), v])) : undefined
}

/** Validates a parsed JSON value; returns the state or every problem as `path: message`. */
export function fromExported(value: unknown): { ok: true; state: TunerState } | { ok: false; errors: string[] } {
  const parsed = ExportSchema.safeParse(value)
  if (!parsed.success) return { ok: false, errors: formatIssues(parsed.error.issues) }
  const v = parsed.data
  const errors: string[] = []
  const table: LookupTable = new Map()
  for (const [b, byHidden] of Object.entries(v.lookup_table ?? {})) {
    if (!isCount(b)) errors.push(`lookup_table.${b}: batch keys are whole numbers ≥ 1`)
    for (const [h, byBits] of Object.entries(byHidden)) {
      if (!isCount(h)) errors.push(`lookup_table.${b}.${h}: hidden keys are whole numbers ≥ 1`)
      for (const [k, raw] of Object.entries(byBits)) {
        const path = `lookup_table.${b}.${h}.${k}`
        const bits = parseBitKey(k)
        if (!bits) errors.push(`${path}: bit key must look like "2,4" or "(2, 4)" with widths in ${BIT_WIDTHS.join(', ')}`)
        const shape = KernelConfigSchema.safeParse(raw)
        if (!shape.success) {
          errors.push(...formatIssues(shape.error.issues).map((e) => `${path}.${e.replace(/^\(root\): /, '')}`))
          continue
        }
        let config: KernelConfig
        try {
          config = createKernelConfig(shape.data)
        } catch (err) {
          errors.push(`${path}: ${isKerneltuneError(err) ? err.message : String(err)}`)
          continue
        }
        if (bits && isCount(b) && isCount(h)) setEntry(table, Number(b), Number(h), bits, config)
      }
    }
  }
  for (const [bw, sg] of Object.entries(v.simdgroup_mapping ?? {})) {
    if (!(SIMDGROUP_CONFIGS as readonly number[]).includes(sg)) {
      errors.push(`simdgroup_mapping.${bw}: ${sg} is not an accepted simdgroup count (${SIMDGROUP_CONFIGS.join(', ')})`)
    }
  }
  const optimized = new Map<string, OptimizedConfig>()
  for (const [key, o] of Object.entries(v.optimized_configs ?? {})) {
    const expected = optimizedKey(o.batch_size, o.bit_width, o.hidden_dim)
    if (key !== expected) errors.push(`optimized_configs.${key}: key must be "<batch>_<bit>_<hidden>" of its values ("${expected}")`)
    else optimized.set(key, o)
  }
  if (errors.length) return { ok: false, errors }
  const family = v.device_family ?? 'Unknown'
  return {
    ok: true,
    state: {
      device: v.device ?? family.toLowerCase(),
      device_name: v.device_name ?? family,
      device_family: family,
      adaptation_enabled: v.adaptation_enabled ?? true,
      lookup_table: table,
      adaptation_timings: new Map(Object.entries(v.adaptation_timings ?? {})),
      optimized_configs: optimized,
      ...(v.tile_size_mapping ? { tile_size_mapping: numericRecord(v.tile_size_mapping)! } : {}),
      ...(v.simdgroup_mapping ? { simdgroup_mapping: numericRecord(v.simdgroup_mapping)! } : {}),
      ...(v.adaptation_history_len ? { adaptation_history_len: v.adaptation_history_len } : {}),
    },
  }
}
