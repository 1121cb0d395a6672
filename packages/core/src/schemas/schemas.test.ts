import { describe, expect, it } from 'vitest'
import { normalizeQuantName, QuantInputSchema } from './quant.ts'
import { ModelSpecSchema } from './model.ts'
import { HardwareSpecSchema } from './hardware.ts'
import { WorkloadSchema } from './workload.ts'
import { parseWith, validateWith } from '../validation.ts'
import { domainJsonSchemas } from '../json-schema.ts'

describe('normalizeQuantName', () => {
  it.each([
    ['Q4_K', 'Q4_K'], ['q4k', 'Q4_K'], ['Q4K', 'Q4_K'], ['Q4_K_M', 'Q4_K'], ['Q3_K_L', 'Q3_K'],
    ['Q6K', 'Q6_K'], ['q8_0', 'Q8_0'], ['fp16', 'F16'], ['bf16', 'BF16'], ['IQ4_XS', 'IQ4_XS'], ['fp8', 'FP8_E4M3'],
  ])('should read %s as %s', (input, expected) => {
    expect(normalizeQuantName(input)).toBe(expected)
  })

  it('should return undefined for an unknown name and the schema should list accepted names', () => {
    expect(normalizeQuantName('Q9_Z')).toBeUndefined()
    const r = validateWith(QuantInputSchema, 'Q9_Z')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.errors[0]).toContain('Q4_K')
  })
})

describe('domain schemas', () => {
  it('should apply defaults and reject bad values with paths', () => {
    expect(WorkloadSchema.parse({})).toMatchObject({ batch: 1, phase: 'decode' })
    expect(ModelSpecSchema.parse({ paramsB: 7, quant: 'Q4K' }).quant).toBe('Q4_K')
    expect(() => parseWith(HardwareSpecSchema, { name: 'x', memBwGbs: -1, fp16Tflops: 1 }, 'hardware spec')).toThrow(
      /invalid hardware spec: memBwGbs: /,
    )
  })

  it('should generate a JSON Schema for every domain type', () => {
    const schemas = domainJsonSchemas()
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['model-spec', 'hardware-spec', 'workload', 'combo']))
    const hw = schemas['hardware-spec']!
    expect(hw.type).toBe('object')
    expect(hw.required).toEqual(expect.arrayContaining(['name', 'memBwGbs', 'fp16Tflops']))
  })
})
