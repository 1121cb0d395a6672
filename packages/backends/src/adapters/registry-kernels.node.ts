/**
 * Tier 3 registry kernels in a gpu-kernels measurement. Of the tenant's registry entries the run
 * passes, only the approved kernel of the family the combination runs (gemv/<format>) is selected
 * (kernel-lab's selectKernel: the fastest at verification); proposed and deprecated ones are
 * reported as excluded with the reason. The selected kernel is generated code, so it runs in the
 * kernel-lab sandbox (Deno, no permissions but WebGPU), once per GEMV of the plan at the run's
 * shapes, where its output is verified again against the CPU reference: a kernel verified at other
 * shapes may be wrong at these, and is then excluded. Where it is correct and its median is below
 * the tuned kernel's, its samples replace the tuned kernel's for that GEMV (it is "used").
 */
import { KerneltuneError, type MeasurementRequest, type RegistryKernelUse } from '@kerneltune/core'
import { selectKernel } from '@kerneltune/kernel-lab'
import { verifyInSandbox, type VerifyOptions } from '@kerneltune/kernel-lab/node'
import type { GpuKernelsPlan } from '../gpu-kernels-mapping.ts'
import type { WorkerResult } from './gpu-kernels-worker.ts'

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN
}

export interface RegistryMeasurement {
  result: WorkerResult
  uses: RegistryKernelUse[]
  notes: string[]
}

/** Measures the selected registry kernel next to the tuned one and merges the faster per GEMV. */
export async function withRegistryKernels(plan: GpuKernelsPlan, tuned: WorkerResult, request: MeasurementRequest, options: Pick<VerifyOptions, 'deno'> = {}): Promise<RegistryMeasurement> {
  const entries = request.registryKernels ?? []
  const family = `gemv/${plan.format}`
  const { selected, excluded } = selectKernel(entries, family)
  const uses: RegistryKernelUse[] = excluded.map((e) => ({ id: e.id, name: e.name, kernelFamily: family, selection: 'excluded', used: false, why: e.why }))
  const notes: string[] = []
  if (!selected) {
    notes.push(`registry kernels: no approved ${family} kernel of this tenant to select${excluded.length ? ` (${excluded.length} excluded)` : ''}`)
    return { result: tuned, uses, notes }
  }
  const reps = tuned.reps.map((r) => ({ ...r, breakdown: { ...r.breakdown } }))
  const usedFor: string[] = []
  const compared: string[] = []
  for (const g of plan.gemvs) {
    if (request.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the measurement was cancelled')
    const problem = { format: plan.format, m: g.m, n: g.n, k: g.k }
    const v = await verifyInSandbox(selected.source, problem, { timing: { warmup: Math.max(1, request.warmups), iterations: reps.length }, ...options })
    if (!v.verified || !v.timings) {
      const why = `selected but not correct at ${g.name} ${g.m}x${g.n}x${g.k}: ${v.verification.error ?? v.sandbox.outcome}`
      uses.push({ id: selected.id, name: selected.name, kernelFamily: family, selection: 'excluded', used: false, why })
      notes.push(`registry kernel ${selected.name} (${selected.id}): ${why}; the tuned kernel's measurement stands for every GEMV`)
      return { result: tuned, uses, notes }
    }
    const tunedMs = median(reps.map((r) => r.breakdown[g.name]!))
    const mine = v.timings.samplesMs
    const faster = v.timings.medianMs < tunedMs
    notes.push(`registry kernel ${selected.name} (${selected.id}) at ${g.name} ${g.m}x${g.n}x${g.k}: correct (max |error| ${v.verification.maxAbsError.toExponential(2)}), median ${v.timings.medianMs.toFixed(4)} ms over ${mine.length} dispatches in the sandbox (wall, submit to done) vs tuned ${tunedMs.toFixed(4)} ms (${tuned.timing} timing): ${faster ? 'used' : 'not used'}`)
    compared.push(`${g.name} ${g.m}x${g.n}x${g.k}: ${v.timings.medianMs.toFixed(4)} ms vs tuned ${tunedMs.toFixed(4)} ms`)
    if (faster) {
      usedFor.push(g.name)
      reps.forEach((r, i) => { r.breakdown[g.name] = mine[i] ?? mine[mine.length - 1]! })
    }
  }
  for (const r of reps) r.latencyMs = Object.values(r.breakdown).reduce((a, b) => a + b, 0)
  uses.push({ id: selected.id, name: selected.name, kernelFamily: family, selection: 'selected', used: usedFor.length > 0, why: `approved; ${usedFor.length ? `used for ${usedFor.join(', ')} (faster than the tuned kernel)` : 'slower than the tuned kernel for every GEMV, not used'}; medians of ${reps.length} dispatches, sandbox wall time vs ${tuned.timing}: ${compared.join('; ')}` })
  return { result: { ...tuned, reps }, uses, notes }
}
