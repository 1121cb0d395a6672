/**
 * A child process of `runNested` (nested-parallel.ts): receives the samples and the chips of its
 * share of the outer folds, runs those folds, sends their results back and exits.
 */
import type { TrainingSample } from '../src/learned.ts'
import { prepare } from '../src/learned.ts'
import { outerFold, outerSplits } from './nested.ts'

process.once('message', (m: { samples: TrainingSample[]; chips: string[] }) => {
  const rows = prepare(m.samples)
  const splits = outerSplits(m.samples).filter((s) => m.chips.includes(s.chip))
  for (const split of splits) process.send!({ fold: outerFold(m.samples, rows, split) })
  process.send!({ done: true }, () => process.exit(0))
})
