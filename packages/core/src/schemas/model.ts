import { z } from 'zod'
import { QuantInputSchema } from './quant.ts'

/** A model as kerneltune sees it: shapes and sizes, not weights. */
// Spelled out (not inferred) so JSR can publish the package without slow types.
export const ModelSpecSchema: z.ZodObject<{
  name: z.ZodOptional<z.ZodString>
  architecture: z.ZodOptional<z.ZodString>
  paramsB: z.ZodNumber
  activeParamsB: z.ZodOptional<z.ZodNumber>
  hiddenDim: z.ZodOptional<z.ZodNumber>
  intermediateDim: z.ZodOptional<z.ZodNumber>
  numLayers: z.ZodOptional<z.ZodNumber>
  numHeads: z.ZodOptional<z.ZodNumber>
  numKvHeads: z.ZodOptional<z.ZodNumber>
  headDim: z.ZodOptional<z.ZodNumber>
  vocabSize: z.ZodOptional<z.ZodNumber>
  contextLength: z.ZodOptional<z.ZodNumber>
  numExperts: z.ZodOptional<z.ZodNumber>
  expertsPerToken: z.ZodOptional<z.ZodNumber>
  tieEmbeddings: z.ZodOptional<z.ZodBoolean>
  quant: z.ZodDefault<typeof QuantInputSchema>
}> = z.object({
  name: z.string().min(1).optional(),
  architecture: z.string().min(1).optional(),
  /** Total parameters, in billions. */
  paramsB: z.number().positive().max(100_000),
  /** Parameters used per token (MoE: fewer than total), in billions. Defaults to paramsB. */
  activeParamsB: z.number().positive().max(100_000).optional(),
  hiddenDim: z.number().int().positive().optional(),
  intermediateDim: z.number().int().positive().optional(),
  numLayers: z.number().int().positive().optional(),
  numHeads: z.number().int().positive().optional(),
  numKvHeads: z.number().int().positive().optional(),
  headDim: z.number().int().positive().optional(),
  vocabSize: z.number().int().positive().optional(),
  contextLength: z.number().int().positive().optional(),
  numExperts: z.number().int().positive().optional(),
  expertsPerToken: z.number().int().positive().optional(),
  tieEmbeddings: z.boolean().optional(),
  quant: QuantInputSchema.default('F16'),
})
export type ModelSpec = z.output<typeof ModelSpecSchema>
export type ModelSpecInput = z.input<typeof ModelSpecSchema>
