/**
 * The one sequential loop (issue 36 item 3): the baseline first, then every candidate in order,
 * each measured by a step the caller gives, results stored elsewhere kept as they are. `runSweep`
 * (the sweep design: early stopping against the defaults and the best so far, then the analysis)
 * and the tuner's `executeRun` (a stored run: result cache, registry kernels, early stopping
 * against the baseline) both iterate here; only their step differs. A candidate that fails is a
 * result of the loop (its error kept), a cancellation ends it, and a baseline that fails ends it
 * too: nothing can be compared without it.
 */
import { isKerneltuneError } from '@kerneltune/core/lite'
import type { Combo, RepetitionMetrics } from '@kerneltune/core'
import type { MeasuredCombo } from './sweep-analysis.ts'

export interface SequentialLoopOptions {
  readonly baseline: { readonly combo: Combo; readonly hash: string }
  /** Measured in this order, after the baseline. */
  readonly candidates: readonly { readonly combo: Combo; readonly hash: string }[]
  /** Measures one combination; `baseline` is the baseline's repetitions, undefined when measuring the baseline itself. */
  readonly step: (c: { readonly combo: Combo; readonly hash: string }, baseline: readonly RepetitionMetrics[] | undefined, index: number) => Promise<Omit<MeasuredCombo, 'combo' | 'hash'>>
  /** Results an earlier execution stored, by hash: kept, not measured again. */
  readonly done?: ReadonlyMap<string, MeasuredCombo>
  /** Told of every result, kept or measured, in order (the sweep ranks the best so far here). */
  readonly consider?: (c: MeasuredCombo, isBaseline: boolean) => void
  /** Told once per combination measured here, before the next starts: where a caller stores it. */
  readonly onMeasured?: (c: MeasuredCombo, isBaseline: boolean, index: number) => void | Promise<void>
  /** Told when a kept result is skipped (index 0 the baseline, i the i-th candidate). */
  readonly onKept?: (c: MeasuredCombo, isBaseline: boolean, index: number) => void
}

export async function sequentialLoop(o: SequentialLoopOptions): Promise<{ baseline: MeasuredCombo; measured: MeasuredCombo[] }> {
  let baseline = o.done?.get(o.baseline.hash)
  if (baseline) o.onKept?.(baseline, true, 0)
  else {
    baseline = { ...o.baseline, ...(await o.step(o.baseline, undefined, 0)) }
    await o.onMeasured?.(baseline, true, 0)
  }
  o.consider?.(baseline, true)
  const measured: MeasuredCombo[] = []
  for (const [i, c] of o.candidates.entries()) {
    const previous = o.done?.get(c.hash)
    let m: MeasuredCombo
    if (previous) {
      m = previous
      o.onKept?.(m, false, i + 1)
    } else {
      try {
        m = { ...c, ...(await o.step(c, baseline.reps, i + 1)) }
      } catch (e) {
        if (isKerneltuneError(e) && e.code === 'CANCELLED') throw e
        // A setting the engine refuses at run time is a result of the loop, not a reason to stop it.
        m = { ...c, reps: [], error: e instanceof Error ? e.message : String(e) }
      }
    }
    measured.push(m)
    o.consider?.(m, false)
    if (!previous) await o.onMeasured?.(m, false, i + 1)
  }
  return { baseline, measured }
}
