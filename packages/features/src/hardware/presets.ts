/**
 * The hardware preset table and its lookups. Labels from benchmark tables ("4090 24GB * 2",
 * "Nvidia A100 GPU", "M1 7‑Core GPU 8GB" with a non-breaking hyphen) resolve through
 * `findHardwarePreset`, which normalises case, dashes, vendor prefixes and the "* N" suffix.
 */
import { KerneltuneError } from '@kerneltune/core'
import { NVIDIA_PRESETS } from './nvidia.ts'
import { AMD_PRESETS, APPLE_PRESETS, INTEL_PRESETS } from './others.ts'
import { kernelFiguresOf } from './kernel-figures.ts'
import type { HardwareBackend, HardwarePreset } from './types.ts'

/** The backend a vendor's hardware usually runs in llama.cpp; undefined where llama.cpp has none (Gaudi). */
export function usualBackend(p: Pick<HardwarePreset, 'vendor' | 'kind' | 'backend'>): HardwareBackend | undefined {
  if (p.backend) return p.backend
  if (p.kind === 'cpu') return 'cpu'
  if (p.kind === 'accelerator') return undefined
  return ({ nvidia: 'cuda', apple: 'metal', amd: 'rocm', intel: 'sycl' } as Record<string, HardwareBackend | undefined>)[p.vendor ?? 'other']
}

export const HARDWARE_PRESETS: readonly HardwarePreset[] = [...NVIDIA_PRESETS, ...AMD_PRESETS, ...APPLE_PRESETS, ...INTEL_PRESETS].map((p) => {
  const backend = usualBackend(p)
  const withKernels = { ...p, ...kernelFiguresOf(p) }
  return backend ? { ...withKernels, backend } : withKernels
})

/** Labels seen in benchmark tables that deliberately have no preset, with the reason. */
export const UNSUPPORTED_HARDWARE_LABELS: Readonly<Record<string, string>> = {
  'sambanova sn40l': 'SambaNova publishes no memory-bandwidth figure for the SN40L that could be checked, so no preset is given',
}

const BY_ID = new Map(HARDWARE_PRESETS.map((p) => [p.id, p]))

/** Lower-case, ASCII dashes, single spaces, no vendor/brand prefix. */
export function normalizeHardwareLabel(label: string): string {
  return label
    .normalize('NFKC')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
}

const stripBrand = (s: string) => s.replace(/^(nvidia|amd|apple|intel|geforce|radeon)\s+/g, '').replace(/^(geforce|radeon)\s+/, '')

const BY_LABEL = new Map<string, HardwarePreset>()
for (const p of HARDWARE_PRESETS) {
  for (const label of [p.id, p.name, ...p.aliases]) {
    const n = normalizeHardwareLabel(label)
    if (!BY_LABEL.has(n)) BY_LABEL.set(n, p)
    const bare = stripBrand(n)
    if (!BY_LABEL.has(bare)) BY_LABEL.set(bare, p)
  }
}

/** Splits "4090 24GB * 4" into the base label and the device count (1 when absent). */
export function parseDeviceCount(label: string): { base: string; count: number } {
  const m = /^(.*?)\s*(?:\*|\s[x×])\s*(\d+)\s*$/.exec(label.trim())
  return m ? { base: m[1]!, count: Number(m[2]) } : { base: label.trim(), count: 1 }
}

/** The preset with this id, or undefined. */
export function getHardwarePreset(id: string): HardwarePreset | undefined {
  return BY_ID.get(id)
}

/** The preset with this id, or a NOT_FOUND error that lists the ids. */
export function requireHardwarePreset(id: string): HardwarePreset {
  const p = BY_ID.get(id) ?? findHardwarePreset(id)
  if (!p) {
    throw new KerneltuneError('NOT_FOUND', `unknown hardware "${id}"; accepted: ${HARDWARE_PRESETS.map((h) => h.id).join(', ')}`)
  }
  return p
}

/** All presets, optionally of one vendor. */
export function listHardwarePresets(vendor?: HardwarePreset['vendor']): HardwarePreset[] {
  return HARDWARE_PRESETS.filter((p) => vendor === undefined || p.vendor === vendor)
}

/**
 * Maps a hardware label as benchmark tables print it to a preset: ids, names and aliases,
 * ignoring case, dash style, a vendor prefix and a trailing "* N" device count.
 */
export function findHardwarePreset(label: string): HardwarePreset | undefined {
  const { base } = parseDeviceCount(label)
  const n = normalizeHardwareLabel(base)
  return BY_LABEL.get(n) ?? BY_LABEL.get(stripBrand(n)) ?? BY_LABEL.get(stripBrand(n).replace(/ gpu$/, ''))
}
