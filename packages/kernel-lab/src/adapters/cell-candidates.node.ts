/**
 * Approved Tier 3 registry kernels as extra candidates of each tuned cell (`kerneltune autotune
 * --registry-kernels`, Metal Marlin's cells). For the cell's kernel family (the kind and format its best config ran,
 * e.g. gemv/q4_0) kernel-lab's selectKernel picks the approved entry (proposed and deprecated ones
 * are listed as excluded, with the reason); it runs in the sandbox at the cell's problem, verified
 * there against the CPU reference, and its mean latency is set against the cell's best config.
 * The lookup table keeps the tuned configs (its upstream shape has no place for a module).
 */
import type { RegistryEntry } from '@kerneltune/core'
import type { WeightFormat } from '@kerneltune/gpu-kernels'
import { mean } from '@kerneltune/stats'
import { selectKernel, type Selection } from '../selection.ts'
import { verifyInSandbox } from './verify.node.ts'

/** What a tuned cell says of itself (metal-marlin-autotune's CellSummary has these fields). */
export interface TunedCell {
  readonly bits: readonly number[]
  readonly batch: number
  readonly hidden: number
  readonly best: { readonly latency_ms: number; readonly kernel?: { readonly kind: string; readonly format: string } | null } | null
}

export interface CellRegistry {
  family: string
  selected: null | { id: string; name: string; verified: boolean; latency_ms: number | null; median_ms: number | null; faster_than_best: boolean; error?: string }
  excluded: Selection['excluded']
}

export async function registryCandidates(cells: readonly TunedCell[], entries: readonly RegistryEntry[], o: { warmup: number; iterations: number; intermediateMultiplier: number }): Promise<(CellRegistry | null)[]> {
  const out: (CellRegistry | null)[] = []
  for (const c of cells) {
    const k = c.best?.kernel
    // Mixed cells add several kernels' latencies; a registry kernel stands in for one kernel only.
    if (!k || c.bits.length !== 1) { out.push(null); continue }
    const family = `${k.kind}/${k.format}`
    const { selected, excluded } = selectKernel(entries, family)
    if (!selected) { out.push({ family, selected: null, excluded }); continue }
    const problem = { format: k.format as WeightFormat, m: c.batch, n: o.intermediateMultiplier * c.hidden, k: c.hidden }
    const v = await verifyInSandbox(selected.source, problem, { timing: { warmup: o.warmup, iterations: o.iterations } })
    const latency = v.timings ? mean(v.timings.samplesMs) : null
    out.push({
      family, excluded,
      selected: {
        id: selected.id, name: selected.name, verified: v.verified, latency_ms: latency, median_ms: v.timings?.medianMs ?? null,
        faster_than_best: latency !== null && latency < c.best!.latency_ms,
        ...(v.verified ? {} : { error: v.verification.error ?? v.sandbox.outcome }),
      },
    })
  }
  return out
}
