import { z } from 'zod'

/**
 * A Tier 3 registry kernel as one combination's measurement saw it: `selected` (measured next to
 * the tuned kernel; `used` when it was the faster one for at least one GEMV) or `excluded` (not
 * approved, or not correct at the run's shapes), with the reason.
 */
export const RegistryKernelUseSchema: z.ZodObject<{
  id: z.ZodString
  name: z.ZodString
  kernelFamily: z.ZodString
  selection: z.ZodEnum<{ selected: 'selected'; excluded: 'excluded' }>
  used: z.ZodBoolean
  why: z.ZodString
}> = z.object({
  id: z.string(),
  name: z.string(),
  kernelFamily: z.string(),
  selection: z.enum(['selected', 'excluded']),
  used: z.boolean(),
  why: z.string(),
})
export type RegistryKernelUse = z.output<typeof RegistryKernelUseSchema>
