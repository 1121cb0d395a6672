/**
 * The parts of the result-cache key that describe the target: a model hash, a hardware
 * fingerprint and a workload fingerprint. Each is FNV-1a 64 of the canonical JSON of the fields
 * that change a measurement (names and source lists are left out, so that two spellings of the
 * same device share results).
 */
import { canonicalJson, fnv1a64 } from '@kerneltune/catalog'
import type { HardwareSpec, ModelSpec, Workload } from '@kerneltune/core'
import type { CacheKeyParts } from '@kerneltune/store'

const strip = (o: object, drop: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([k, v]) => !drop.includes(k) && v !== undefined))

export function modelHash(model: ModelSpec): string {
  return fnv1a64(canonicalJson(strip(model, ['name'])))
}

export function hardwareFingerprint(hardware: HardwareSpec): string {
  return fnv1a64(canonicalJson(strip(hardware, ['sources', 'id'])))
}

export function workloadFingerprint(workload: Workload): string {
  return fnv1a64(canonicalJson(strip(workload, [])))
}

/** The fingerprint of the device a real backend measured on, from its name in words. */
export function deviceFingerprint(device: string): string {
  return fnv1a64(canonicalJson({ device: device.trim() }))
}

/** Whose cache entry it is and what measured it. */
export interface CacheScope {
  /** The run's tenant, or SHARED_CACHE_TENANT when the operator opted into a shared cache. */
  readonly tenant: string
  /** The device that measures (real backends); absent for a prediction of the target. */
  readonly device?: string
  /** The device stands in for the target hardware: the key names the device, not the target. */
  readonly deviceProxy?: boolean
}

/** The cache key for one combination of a target, measured by one backend on one device. */
export function comboCacheKey(target: { model: ModelSpec; hardware: HardwareSpec; workload: Workload; engine: string; engineVersion: string }, catalogVersion: string, comboHash: string, backend: string, scope: CacheScope): CacheKeyParts {
  // The backend is part of what was measured on (a simulated result never answers for a real
  // one), and so is the device that measured: a measurement on this machine's device is keyed by
  // that device, never by the hardware it stands in for.
  const hw = hardwareFingerprint(target.hardware)
  const measuredOn = scope.device === undefined ? hw : scope.deviceProxy ? `on:${deviceFingerprint(scope.device)}` : `${hw}+on:${deviceFingerprint(scope.device)}`
  return {
    tenant: scope.tenant,
    catalogVersion,
    engine: target.engine,
    engineVersion: target.engineVersion,
    modelHash: modelHash(target.model),
    hardwareFingerprint: `${measuredOn}@${backend}`,
    workloadFingerprint: workloadFingerprint(target.workload),
    comboHash,
  }
}
