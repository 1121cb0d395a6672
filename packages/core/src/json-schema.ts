/**
 * JSON Schema for the shared domain types, generated from the zod schemas so the two never
 * drift. `pnpm --filter @kerneltune/core gen:schemas` writes them to `schemas/`.
 */
import { z } from 'zod'
import { ComboSchema } from './schemas/combo.ts'
import { HardwareSpecSchema } from './schemas/hardware.ts'
import { ModelSpecSchema } from './schemas/model.ts'
import { QuantNameSchema } from './schemas/quant.ts'
import { KernelTypeSchema, BottleneckClassSchema } from './schemas/kernel.ts'
import { WorkloadSchema } from './schemas/workload.ts'
import { RegistryEntrySchema, RunComboSchema, RunSchema, TuneSessionSchema, TuneTrialSchema } from './schemas/runs.ts'

/** Every schema that has a published JSON Schema, by file name. Later packages add theirs here. */
export const DOMAIN_SCHEMAS: Record<string, z.ZodType> = {
  'model-spec': ModelSpecSchema,
  'hardware-spec': HardwareSpecSchema,
  workload: WorkloadSchema,
  'quant-type': QuantNameSchema,
  'kernel-type': KernelTypeSchema,
  'bottleneck-class': BottleneckClassSchema,
  combo: ComboSchema,
  run: RunSchema,
  'run-combo': RunComboSchema,
  'tune-session': TuneSessionSchema,
  'tune-trial': TuneTrialSchema,
  'registry-entry': RegistryEntrySchema,
}

/** The JSON Schema (draft 2020-12) of one domain schema, describing the accepted input. */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
}

export function domainJsonSchemas(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(DOMAIN_SCHEMAS).map(([k, s]) => [k, toJsonSchema(s)]))
}
