/** The server a serving command's flags name (kept for `sweep --backend server`): compose's benchTarget, for the default serving engine. */
import { benchTarget, type TargetFlags } from '@kerneltune/compose/bench'
import type { ServerTarget } from '@kerneltune/serving/node'
import type { Io } from '../../cli/command.ts'
import { SERVER_TARGET_FLAGS } from './target-flags.ts'

export const serverTarget = (io: Io, f: TargetFlags): ServerTarget => benchTarget(io.cwd, f, SERVER_TARGET_FLAGS[0].default)
