/**
 * What every GPU results file says of how it was made (issue 34): the exact command lines (run.sh's
 * as the shell received it, the kit driver's process.argv, the settings it read from the
 * environment) and the kerneltune checkout (commit, and whether and where it was dirty). The first
 * H200 run came from a dirty tree that no file said what was dirty in, and the files beside it
 * paraphrased their argv.
 */
import { execFileSync } from 'node:child_process'

export interface RunArgv {
  /** run.sh's command line as the shell received it (`printf '%q '` of $0 and its arguments), or null when the kit was started another way. */
  readonly runSh: string | null
  /** The kit driver's process.argv, verbatim. */
  readonly kit: readonly string[]
  /** The variables that change what the kit does (OUT, KIT, KT_KIT_*), as they were set. */
  readonly settings: Readonly<Record<string, string>>
}

const SETTING = /^(OUT|KIT|KT_KIT_(?!RUN_ARGV$)\w+)$/

export function runArgv(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): RunArgv {
  const settings = Object.fromEntries(Object.entries(env).filter(([k, v]) => SETTING.test(k) && v !== undefined).sort(([a], [b]) => a.localeCompare(b))) as Record<string, string>
  return { runSh: env.KT_KIT_RUN_ARGV?.trim() || null, kit: [...argv], settings }
}

export interface CheckoutState {
  readonly commit: string
  readonly dirty: boolean
  /** `git status --porcelain` lines: what differed from the commit. */
  readonly dirtyFiles: readonly string[]
}

/** The checkout's commit and what in it differs from the commit; 'unknown' outside a git work tree. */
export function checkoutState(cwd: string): CheckoutState {
  const git = (...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  try {
    const commit = git('rev-parse', 'HEAD').trim()
    const dirtyFiles = git('status', '--porcelain').split('\n').filter((l) => l.trim())
    return { commit, dirty: dirtyFiles.length > 0, dirtyFiles }
  } catch {
    return { commit: 'unknown', dirty: false, dirtyFiles: [] }
  }
}
