/**
 * The demo's own wall time, from the start of `npm run demo` (or of this process when run
 * directly), broken down by phase (issue 23 item 7): a "done in X" of one phase let the README,
 * the help and a new user's stopwatch say 12 s, 70–100 s and 41 s of the same command.
 * tooling/scripts/bootstrap.mjs passes its start and the length of its install check in the
 * environment; both are checked here, and ignored when they do not describe this run.
 */
import { z } from 'zod'

export const PHASES = ['install', 'startup', 'detect', 'synth', 'predict', 'measure', 'sweep', 'binary', 'serve', 'other'] as const
export type Phase = (typeof PHASES)[number]

const PHASE_LABELS: Record<Phase, string> = {
  install: 'install check',
  startup: 'start-up',
  detect: 'detect',
  synth: 'model',
  predict: 'prediction',
  measure: 'measurement',
  sweep: 'sweep',
  binary: 'llama-server binary',
  serve: 'serving',
  other: 'report and clean-up',
}

/** Where the wall time starts: bootstrap.mjs (npm run demo) or this process. */
export interface DemoOrigin {
  readonly from: 'npm run demo' | 'process start'
  /** Milliseconds since the epoch. */
  readonly at: number
  /** The install check's milliseconds, when bootstrap.mjs ran one. */
  readonly installMs?: number
}

const bootstrapEnv = z.object({
  KERNELTUNE_BOOTSTRAP_STARTED_AT: z.coerce.number().finite().positive(),
  KERNELTUNE_BOOTSTRAP_INSTALL_MS: z.coerce.number().finite().nonnegative().optional(),
})

/**
 * The origin of the wall time. The bootstrap's start counts only when it precedes this process
 * and by less than a day: an environment inherited from an older run (a shell that exported it)
 * would otherwise add hours.
 */
export function demoOrigin(env: Readonly<Record<string, string | undefined>>, processStart: number): DemoOrigin {
  const r = bootstrapEnv.safeParse(env)
  if (!r.success) return { from: 'process start', at: processStart }
  const at = r.data.KERNELTUNE_BOOTSTRAP_STARTED_AT
  if (at > processStart || processStart - at > 86_400_000) return { from: 'process start', at: processStart }
  const installMs = r.data.KERNELTUNE_BOOTSTRAP_INSTALL_MS
  return installMs !== undefined && installMs <= processStart - at ? { from: 'npm run demo', at, installMs } : { from: 'npm run demo', at }
}

export type PhaseSeconds = Partial<Record<Phase, number>>

/**
 * Seconds per phase and in total, from marks taken as the demo runs (milliseconds since the
 * epoch). `startup` is what comes before the demo's own first step (pnpm, tsx, loading the CLI);
 * `other` is the rest after the last phase, so the phases add up to the total.
 */
export function wallSeconds(origin: DemoOrigin, commandStart: number, phases: Omit<PhaseSeconds, 'install' | 'startup' | 'other'>, now: number): { total: number } & PhaseSeconds {
  const total = (now - origin.at) / 1000
  const install = origin.installMs === undefined ? undefined : origin.installMs / 1000
  const startup = (commandStart - origin.at) / 1000 - (install ?? 0)
  const known = Object.values(phases).reduce((a: number, x) => a + (x ?? 0), 0)
  const other = Math.max(0, total - (install ?? 0) - startup - known)
  return { total, ...(install === undefined ? {} : { install }), startup, ...phases, other }
}

/** Seconds with one decimal, grouped in thousands (as the CLI prints its figures). */
const fmt = (n: number, digits: number) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : String(n))

/** One line: the total, where it starts, and every phase. */
export function renderWallTime(origin: DemoOrigin, s: { total: number } & PhaseSeconds, binary: string): string {
  const parts = PHASES.flatMap((p) => {
    const v = s[p]
    return v === undefined ? [] : [`${PHASE_LABELS[p]} ${fmt(v, 1)}${p === 'binary' ? ` (${binary})` : ''}`]
  })
  return `wall time ${fmt(s.total, 1)} s from ${origin.from === 'npm run demo' ? 'the start of `npm run demo`' : 'the start of this process'}: ${parts.join(', ')}`
}
