/**
 * Every top-level command of the CLI, in the order `kerneltune --help` lists them.
 * A new command lives in its own file in this folder and is added to this list.
 */
import type { Command } from '../cli/command.ts'
import { kernelsCommand } from './kernels.ts'
import { autotuneCommand } from './autotune.ts'
import { catalogCommand } from './catalog.ts'
import { modelCommand } from './model.ts'
import { measureCommand } from './measure.ts'
import { translateCommand } from './translate.ts'
import { featuresCommand } from './features.ts'
import { rooflineCommand } from './roofline.ts'
import { hardwareCommand } from './hardware.ts'
import { demoCommand } from './demo.ts'
import { sweepCommand } from './sweep.ts'
import { serveCommand } from './serve.ts'
import { workerCommand } from './worker.ts'
import { runCommand } from './run.ts'
import { tuneCommand } from './tune.ts'
import { tokenCommand } from './token.ts'
import { searchCommand } from './search.ts'
import { banditCommand } from './bandit.ts'
import { predictCommand } from './predict.ts'
import { recommendCommand } from './recommend.ts'
import { trainCommand } from './train.ts'
import { calibrateCommand } from './calibrate.ts'
import { sandboxCommand } from './sandbox.ts'
import { generateCommand } from './generate.ts'
import { registryCommand } from './registry.ts'
import { benchCommand } from './bench.ts'

// Grouped as a user meets them: the whole job, then predict, search, apply, measure, serve.
export const COMMANDS: Command<any>[] = [
  demoCommand,
  // predict
  hardwareCommand, featuresCommand, rooflineCommand, predictCommand, recommendCommand, trainCommand, calibrateCommand,
  // search
  catalogCommand, sweepCommand, runCommand, tuneCommand, searchCommand,
  // apply
  translateCommand,
  // measure
  modelCommand, measureCommand, benchCommand, kernelsCommand, autotuneCommand, sandboxCommand, generateCommand, registryCommand,
  // serve
  serveCommand, workerCommand, tokenCommand, banditCommand,
]
