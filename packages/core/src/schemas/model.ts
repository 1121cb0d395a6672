import { z } from 'zod'
import { QuantInputSchema } from './quant.ts'

/** A model as kerneltune sees it: shapes and sizes, not weights. */
export const ModelSpecSchema = z.object({
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
