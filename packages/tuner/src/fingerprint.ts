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

/** The seed's cache key for one combination of a target, measured by one backend. */
export function comboCacheKey(target: { model: ModelSpec; hardware: HardwareSpec; workload: Workload; engine: string; engineVersion: string }, catalogVersion: string, comboHash: string, backend: string): CacheKeyParts {
  return {
    catalogVersion,
    engine: target.engine,
    engineVersion: target.engineVersion,
    modelHash: modelHash(target.model),
    // The backend is part of what was measured on: a simulated result never answers for a real one.
    hardwareFingerprint: `${hardwareFingerprint(target.hardware)}@${backend}`,
    workloadFingerprint: workloadFingerprint(target.workload),
    comboHash,
  }
}
