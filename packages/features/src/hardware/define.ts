/**
 * One constructor for the GPU, SoC and accelerator presets of every vendor (nvidia.ts, others.ts):
 * the tables list only each part's figures, sources, aliases and notes, in the short keys below, so
 * the shape of a preset (and its defaults: a discrete GPU, memory of its own) is written once.
 */
import type { HardwareBackend, HardwarePreset } from './types.ts'

/** A part's figures: bandwidth GB/s, dense FP16 (tensor where present) TFLOPS, SMs/CUs/Xe cores, L2 MB, memory GB, board power W. */
export interface PartFigures {
  id: string
  name: string
  bw: number
  fp16: number
  sm: number
  l2?: number
  mem: number
  tdp?: number
  /** Compute capability (NVIDIA) or gfx target (AMD). */
  cc?: string
  arch: string
  /** Default 'gpu' (a discrete card). */
  kind?: HardwarePreset['kind']
  /** Memory shared with the CPU (SoCs, superchips); default false. */
  unified?: boolean
  backend?: HardwareBackend
}

/** The preset constructor of one vendor. */
export const partOf = (vendor: 'nvidia' | 'amd' | 'intel') => (f: PartFigures, sources: string[], aliases: string[], notes?: string): HardwarePreset => ({
  id: f.id, name: f.name, vendor, kind: f.kind ?? 'gpu', memBwGbs: f.bw, fp16Tflops: f.fp16, smCount: f.sm,
  ...(f.l2 !== undefined ? { l2CacheMb: f.l2 } : {}), memoryGb: f.mem, ...(f.tdp !== undefined ? { tdpWatts: f.tdp } : {}),
  ...(f.cc !== undefined ? { computeCapability: f.cc } : {}), architecture: f.arch, unifiedMemory: f.unified ?? false,
  sources, aliases, ...(notes !== undefined ? { notes } : {}), ...(f.backend ? { backend: f.backend } : {}),
})
