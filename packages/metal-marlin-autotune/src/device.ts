/**
 * Device naming (§B.3). Upstream reads the CPU brand string through `sysctl` and looks for
 * M1..M4; here the probe is injected (a brand-string probe lives in `adapters/files.node.ts`, and
 * `describeAdapter` turns WebGPU adapter info into a name), so the library touches no runtime.
 */

export type DeviceProbe = () => string | undefined | null

const FAMILIES = ['M1', 'M2', 'M3', 'M4'] as const

/** Upstream detection: the first of m1..m4 in the probe's string, else "unknown" (also on error). */
export function detectDeviceFamily(probe: DeviceProbe): string {
  try {
    const brand = probe()?.toUpperCase() ?? ''
    const hit = FAMILIES.find((f) => brand.includes(f))
    return hit ? hit.toLowerCase() : 'unknown'
  } catch {
    return 'unknown'
  }
}

/** `_normalize_device_family`: detect when empty, else the first M1..M4 in the name, else "Unknown". */
export function normalizeDeviceFamily(name: string | null | undefined, probe?: DeviceProbe): string {
  if (!name) {
    const detected = probe ? detectDeviceFamily(probe) : 'unknown'
    return detected === 'unknown' ? 'Unknown' : detected.toUpperCase()
  }
  const upper = name.toUpperCase()
  return FAMILIES.find((f) => upper.includes(f)) ?? 'Unknown'
}

/** A readable name from WebGPU adapter info, e.g. "mesa llvmpipe (LLVM 19.1.7, 256 bits)". */
export function describeAdapter(info: { vendor?: string; architecture?: string; device?: string; description?: string } | undefined): string {
  if (!info) return 'Unknown'
  const parts = [info.vendor, info.description || info.device, info.description ? '' : info.architecture]
  const name = parts.filter((p) => p && p.trim()).join(' ').trim()
  return name || 'Unknown'
}

/** Lower-case words joined by `_`: "M4 Max" → "m4_max". */
export function deviceSlug(name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '')
  return slug || 'unknown'
}

/** The per-device file name the guide uses: `autotune_mixed_bpw_<slug>.json`. */
export function deviceConfigFileName(deviceName: string): string {
  return `autotune_mixed_bpw_${deviceSlug(deviceName)}.json`
}
