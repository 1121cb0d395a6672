/**
 * The nested leave-one-chip-out evaluation over `jobs` child processes (each outer fold is
 * independent: its own inner selection and fit), merged in chip order, so the result is the same as
 * in one process, only sooner. Children inherit this process's loader flags (tsx).
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { TrainingSample } from '../src/learned.ts'
import { foldLine, mergeFolds, nestedLeaveOneChipOut, outerSplits, type FoldResult, type OuterResult } from './nested.ts'

export async function runNested(samples: readonly TrainingSample[], jobs: number, log: (line: string) => void = () => {}, only?: readonly string[]): Promise<OuterResult> {
  if (jobs <= 1 && !only) return nestedLeaveOneChipOut(samples, log)
  const t0 = Date.now()
  // `only`: the development loop's subset of outer folds (train-pretrained --only); never what is written.
  const chips = outerSplits(samples).map((s) => s.chip).filter((c) => !only || only.includes(c))
  const shares = Array.from({ length: Math.max(1, jobs) }, (_, k) => chips.filter((_, i) => i % jobs === k)).filter((s) => s.length)
  const folds = new Map<string, FoldResult>()
  await Promise.all(shares.map((share) => new Promise<void>((resolve, reject) => {
    // Structured-clone messages, so every number (NaN included) comes back as it was computed.
    const child = fork(fileURLToPath(new URL('./nested-worker.ts', import.meta.url)), [], { serialization: 'advanced' })
    child.on('message', (m: { fold?: FoldResult; done?: boolean }) => {
      if (m.fold) {
        folds.set(m.fold.chip, m.fold)
        log(foldLine(m.fold, t0))
      }
      if (m.done) resolve()
    })
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`nested worker exited with ${code}`))))
    child.on('error', reject)
    child.send({ samples, chips: share })
  })))
  const missing = chips.filter((c) => !folds.has(c))
  if (missing.length) throw new Error(`nested workers returned no fold for ${missing.join(', ')}`)
  return mergeFolds(samples.length, chips.map((c) => folds.get(c)!), (Date.now() - t0) / 1000)
}
