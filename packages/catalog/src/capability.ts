/**
 * The hardware capability model the legality predicates read. It is derived from core's
 * HardwareSpec: NVIDIA compute capability ("9.0" → sm 90), else the architecture name, else a
 * well-known product name; AMD gfx targets; Apple and CPUs. What had to be inferred is said in
 * `notes`, and an unknown compute capability makes SM-gated features unavailable (the safe side).
 */
import type { HardwareCapability, HardwareSpec } from '@kerneltune/core'

const NVIDIA_ARCH_SM: readonly [RegExp, number][] = [
  [/blackwell/i, 100],
  [/hopper/i, 90],
  [/ada/i, 89],
  [/ampere/i, 80],
  [/turing/i, 75],
  [/volta/i, 70],
  [/pascal/i, 60],
]

// Product names → compute capability, from NVIDIA's "CUDA GPUs – compute capability" table.
const NVIDIA_NAME_SM: readonly [RegExp, number][] = [
  [/\b(gb|b)(100|200|300)\b/i, 100],
  [/\brtx\s*50\d0\b|\brtx pro 6000\b/i, 120],
  [/\b(gh200|h100|h200|h800|h20)\b/i, 90],
  [/\b(l4|l40s?|l20)\b|\brtx\s*40\d0\b|\brtx 6000 ada\b/i, 89],
  [/\b(a10g?|a40|a16|a2)\b|\brtx\s*30\d0\b|\brtx a\d000\b/i, 86],
  [/\b(a100|a800|a30)\b/i, 80],
  [/\bt4\b|\brtx\s*20\d0\b/i, 75],
  [/\bv100\b/i, 70],
]

export function nvidiaGeneration(sm: number): string {
  if (sm >= 100) return 'blackwell'
  if (sm >= 90) return 'hopper'
  if (sm === 89) return 'ada'
  if (sm >= 80) return 'ampere'
  if (sm >= 75) return 'turing'
  if (sm >= 70) return 'volta'
  return 'pre-volta'
}

/** "9.0" → 90, "8.9" → 89, "12.0" → 120, "sm_90a" → 90; undefined when unparseable. */
export function parseComputeCapability(text: string | undefined): number | undefined {
  if (!text) return undefined
  const dotted = /^\s*(\d{1,2})\.(\d)\s*$/.exec(text)
  if (dotted) return Number(dotted[1]) * 10 + Number(dotted[2])
  const sm = /^\s*sm_?(\d{2,3})[a-z]?\s*$/i.exec(text)
  return sm ? Number(sm[1]) : undefined
}

function amdGeneration(gfx: string): string {
  if (/^gfx95/.test(gfx)) return 'cdna4'
  if (/^gfx94/.test(gfx)) return 'cdna3'
  if (gfx === 'gfx90a') return 'cdna2'
  if (gfx === 'gfx908') return 'cdna1'
  if (/^gfx12/.test(gfx)) return 'rdna4'
  if (/^gfx11/.test(gfx)) return 'rdna3'
  if (/^gfx10/.test(gfx)) return 'rdna2'
  return 'unknown'
}

const AMD_NAME_GFX: readonly [RegExp, string][] = [
  [/\bmi3[5]\dx?\b/i, 'gfx950'],
  [/\bmi3\d\dx?\b/i, 'gfx942'],
  [/\bmi2\d\dx?\b/i, 'gfx90a'],
  [/\bmi100\b/i, 'gfx908'],
]

/** Derives the capability model of a device. */
export function capabilityOf(hardware: HardwareSpec): HardwareCapability {
  const notes: string[] = []
  const vendor = hardware.vendor
  if (vendor === 'nvidia') {
    let sm = parseComputeCapability(hardware.computeCapability)
    if (sm === undefined && hardware.computeCapability) notes.push(`compute capability "${hardware.computeCapability}" not understood`)
    if (sm === undefined && hardware.architecture) {
      sm = NVIDIA_ARCH_SM.find(([re]) => re.test(hardware.architecture!))?.[1]
      if (sm !== undefined) notes.push(`sm_${sm} inferred from architecture "${hardware.architecture}"`)
    }
    if (sm === undefined) {
      sm = NVIDIA_NAME_SM.find(([re]) => re.test(hardware.name))?.[1]
      if (sm !== undefined) notes.push(`sm_${sm} inferred from the name "${hardware.name}"`)
    }
    if (sm === undefined) {
      notes.push('compute capability unknown: features that need a given SM are treated as unavailable; set computeCapability')
      return { vendor, generation: 'unknown', fp8: false, bf16: false, cudaGraphs: true, notes }
    }
    return { vendor, smVersion: sm, generation: nvidiaGeneration(sm), fp8: sm >= 89, bf16: sm >= 80, cudaGraphs: true, notes }
  }
  if (vendor === 'amd') {
    let gfx = /^gfx[0-9a-f]+$/i.test(hardware.computeCapability ?? '') ? hardware.computeCapability!.toLowerCase() : undefined
    if (!gfx && hardware.architecture && /^gfx/i.test(hardware.architecture)) gfx = hardware.architecture.toLowerCase()
    if (!gfx) {
      gfx = AMD_NAME_GFX.find(([re]) => re.test(hardware.name))?.[1]
      if (gfx) notes.push(`${gfx} inferred from the name "${hardware.name}"`)
    }
    const generation = gfx ? amdGeneration(gfx) : 'unknown'
    if (generation === 'unknown') notes.push('AMD gfx target unknown: FP8 and BF16 are treated as unavailable; set computeCapability to the gfx target')
    else notes.push(`gfx target ${gfx}`)
    return {
      vendor,
      generation,
      // FP8 matrix cores arrived with CDNA3 (MI300, gfx942); BF16 with CDNA2 and RDNA3.
      fp8: generation === 'cdna3' || generation === 'cdna4',
      bf16: ['cdna2', 'cdna3', 'cdna4', 'rdna3', 'rdna4'].includes(generation),
      cudaGraphs: true,
      notes: [...notes, 'graph capture through HIP graphs'],
    }
  }
  if (vendor === 'apple') {
    return {
      vendor,
      generation: /m\d/i.exec(hardware.name)?.[0]?.toLowerCase() ?? 'apple-silicon',
      fp8: false,
      bf16: false,
      cudaGraphs: false,
      notes: ['Metal GPU: no CUDA/ROCm kernel libraries, no FP8; BF16 is not assumed'],
    }
  }
  return { vendor, generation: hardware.kind === 'cpu' || vendor === 'cpu' ? 'cpu' : 'unknown', fp8: false, bf16: false, cudaGraphs: false, notes: [`${vendor} device: no CUDA or ROCm kernel paths`] }
}
