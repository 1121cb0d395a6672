import { z } from 'zod'

export const VENDORS = ['nvidia', 'amd', 'apple', 'intel', 'cpu', 'other'] as const
export const HardwareKindSchema: z.ZodEnum<{ gpu: 'gpu'; cpu: 'cpu'; soc: 'soc'; accelerator: 'accelerator' }> = z.enum(['gpu', 'cpu', 'soc', 'accelerator'])

/** A device's specifications: what the roofline and the feature vector need. */
// Spelled out (not inferred) so JSR can publish the package without slow types.
export const HardwareSpecSchema: z.ZodObject<{
  id: z.ZodOptional<z.ZodString>
  name: z.ZodString
  vendor: z.ZodDefault<z.ZodEnum<{ [V in (typeof VENDORS)[number]]: V }>>
  kind: z.ZodDefault<typeof HardwareKindSchema>
  memBwGbs: z.ZodNumber
  fp16Tflops: z.ZodNumber
  smCount: z.ZodOptional<z.ZodNumber>
  l2CacheMb: z.ZodOptional<z.ZodNumber>
  memoryGb: z.ZodOptional<z.ZodNumber>
  computeCapability: z.ZodOptional<z.ZodString>
  architecture: z.ZodOptional<z.ZodString>
  tdpWatts: z.ZodOptional<z.ZodNumber>
  unifiedMemory: z.ZodDefault<z.ZodBoolean>
  sources: z.ZodDefault<z.ZodArray<z.ZodString>>
}> = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case id such as h100-sxm').optional(),
  name: z.string().min(1),
  vendor: z.enum(VENDORS).default('other'),
  kind: HardwareKindSchema.default('gpu'),
  /** Peak memory bandwidth in GB/s (10^9 bytes per second). */
  memBwGbs: z.number().positive().max(100_000),
  /** Dense FP16/BF16 tensor throughput in TFLOPS (no sparsity). */
  fp16Tflops: z.number().positive().max(100_000),
  /** Streaming multiprocessors (NVIDIA), compute units (AMD) or GPU cores (Apple). */
  smCount: z.number().int().positive().optional(),
  l2CacheMb: z.number().positive().optional(),
  memoryGb: z.number().positive().optional(),
  /** NVIDIA compute capability such as "9.0"; AMD gfx target such as "gfx942". */
  computeCapability: z.string().optional(),
  architecture: z.string().optional(),
  /**
   * Board power (TDP/TGP) in W, where the vendor publishes one: a power-capped card sustains less
   * than its datasheet tensor rate (the throughput regressor's prefill uses it).
   */
  tdpWatts: z.number().positive().max(10_000).optional(),
  unifiedMemory: z.boolean().default(false),
  /** Where each number came from (URLs or document names). */
  sources: z.array(z.string()).default([]),
})
export type HardwareSpec = z.output<typeof HardwareSpecSchema>
export type HardwareSpecInput = z.input<typeof HardwareSpecSchema>
