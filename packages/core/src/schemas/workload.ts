import { z } from 'zod'

export const PhaseSchema: z.ZodEnum<{ decode: 'decode'; prefill: 'prefill' }> = z.enum(['decode', 'prefill'])
export type Phase = z.output<typeof PhaseSchema>

/** What the model is asked to do: how many sequences, how long, and which phase. */
// Spelled out (not inferred) so JSR can publish the package without slow types.
export const WorkloadSchema: z.ZodObject<{
  batch: z.ZodDefault<z.ZodNumber>
  phase: z.ZodDefault<typeof PhaseSchema>
  promptTokens: z.ZodDefault<z.ZodNumber>
  generatedTokens: z.ZodDefault<z.ZodNumber>
  contextLength: z.ZodOptional<z.ZodNumber>
  cudaGraphs: z.ZodDefault<z.ZodBoolean>
}> = z.object({
  batch: z.number().int().min(1).max(65_536).default(1),
  phase: PhaseSchema.default('decode'),
  promptTokens: z.number().int().min(1).max(10_000_000).default(512),
  generatedTokens: z.number().int().min(1).max(10_000_000).default(128),
  /** Context length (tokens already in the KV cache) at which decode is measured. */
  contextLength: z.number().int().min(0).max(10_000_000).optional(),
  cudaGraphs: z.boolean().default(false),
})
export type Workload = z.output<typeof WorkloadSchema>
export type WorkloadInput = z.input<typeof WorkloadSchema>
