/**
 * Which registry kernel may be used: only `approved` entries of the kernel family are
 * candidates (proposed ones wait for an approver, deprecated ones are out of future selection);
 * among them the fastest by the timings recorded at verification. `usageNotes` says, for results
 * that used registry kernels, which of those have since been deprecated.
 */
import type { RegistryEntry } from '@kerneltune/core'

export interface Selection {
  selected: RegistryEntry | null
  /** Entries of the family that could not be selected, and why. */
  excluded: { id: string; name: string; status: RegistryEntry['status']; why: string }[]
}

const medianMs = (e: RegistryEntry) => {
  const t = (e.metadata as { timings?: { medianMs?: unknown } }).timings?.medianMs
  return typeof t === 'number' && Number.isFinite(t) ? t : Infinity
}

export function selectKernel(entries: readonly RegistryEntry[], kernelFamily: string): Selection {
  const family = entries.filter((e) => e.kernelFamily === kernelFamily)
  const excluded = family.filter((e) => e.status !== 'approved').map((e) => ({
    id: e.id, name: e.name, status: e.status,
    why: e.status === 'proposed' ? 'proposed: not approved yet' : 'deprecated: removed from selection',
  }))
  const approved = family.filter((e) => e.status === 'approved').sort((a, b) => medianMs(a) - medianMs(b))
  return { selected: approved[0] ?? null, excluded }
}

/** One note per kernel that is deprecated now, for the results that used (or, with `how`, only measured) it. */
export function usageNotes(usedIds: readonly string[], entries: readonly RegistryEntry[], how = 'used by this result'): string[] {
  const byId = new Map(entries.map((e) => [e.id, e]))
  return usedIds.flatMap((id) => {
    const e = byId.get(id)
    if (!e) return [`registry kernel ${id} is no longer in the registry`]
    return e.status === 'deprecated' ? [`registry kernel ${e.name} (${id}) ${how} has been deprecated since; it will not be selected again`] : []
  })
}
