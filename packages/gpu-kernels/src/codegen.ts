/** WGSL for a kernel configuration. */
import { KerneltuneError } from '@kerneltune/core'
import { generateGemm } from './wgsl-gemm.ts'
import { generateGemv } from './wgsl-gemv.ts'
import { KERNEL_KINDS, WEIGHT_FORMATS, type GeneratedWgsl, type KernelKind, type MatmulConfig, type WeightFormat } from './types.ts'

export function generateWgsl(kind: KernelKind, format: WeightFormat, config: MatmulConfig): GeneratedWgsl {
  if (!KERNEL_KINDS.includes(kind)) throw new KerneltuneError('INVALID_INPUT', `unknown kernel kind "${kind}"; kinds: ${KERNEL_KINDS.join(', ')}`)
  if (!WEIGHT_FORMATS.includes(format)) throw new KerneltuneError('INVALID_INPUT', `unknown weight format "${format}"; formats: ${WEIGHT_FORMATS.join(', ')}`)
  return kind === 'gemv' ? generateGemv(format, config) : generateGemm(format, config)
}
