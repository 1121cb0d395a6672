// Test helpers, outside src so they are never built or published: hardware specs with only what the catalog reads.
import type { HardwareSpec } from '@kerneltune/core'

export function gpu(name: string, vendor: HardwareSpec['vendor'], computeCapability?: string, architecture?: string): HardwareSpec {
  return {
    name,
    vendor,
    kind: vendor === 'cpu' ? 'cpu' : 'gpu',
    memBwGbs: 1000,
    fp16Tflops: 100,
    unifiedMemory: vendor === 'apple',
    sources: [],
    ...(computeCapability ? { computeCapability } : {}),
    ...(architecture ? { architecture } : {}),
  }
}

export const A100 = gpu('NVIDIA A100', 'nvidia', '8.0')
export const H100 = { ...gpu('NVIDIA H100 SXM', 'nvidia', '9.0'), id: 'h100-sxm' }
export const L4 = gpu('NVIDIA L4', 'nvidia', '8.9')
export const T4 = gpu('NVIDIA T4', 'nvidia', '7.5')
export const MI300X = gpu('AMD Instinct MI300X', 'amd', 'gfx942')
export const M2 = gpu('Apple M2 Max', 'apple')
