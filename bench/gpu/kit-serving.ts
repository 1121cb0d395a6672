/**
 * Steps 2 and 3 of the GPU kit, through the bundled CLI as a user would run them: a serving sweep
 * of llama-server settings under concurrent load with latency objectives (goodput, the
 * recommended command line and its capacity, where this CLI has them), and `bench serve` of the
 * defaults at rising concurrency.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { secondsLeft, skip, writeResult, type KitContext } from './kit-context.ts'
import { launchLines } from './kit-launches.ts'
import { parseJsonOut, runProc, type ProcResult } from './kit-proc.ts'

const serverEnv = (ctx: KitContext) => ({ KERNELTUNE_LLAMA_SERVER: join(ctx.binDir, 'llama-server') })

/** Which optional flags this CLI build has (the kit runs with whatever the checkout provides). */
export async function cliHas(ctx: KitContext, command: readonly string[], flag: string): Promise<boolean> {
  const r = await runProc(ctx.node, [ctx.cli, ...command, '--help'], { timeoutMs: 30_000 })
  return r.stdout.includes(flag)
}

/** Which of the sweep's optional flags this CLI build has. */
export interface SweepFlagsPresent {
  readonly objectives: boolean
  readonly db: boolean
  readonly capacity: boolean
  /** --out FILE: the result so far after every round (and a --time-budget that covers the whole command). */
  readonly out: boolean
}

/** Where the sweep writes its result after every round (--out): read when the kit has to stop the sweep. */
export const sweepOutFile = (ctx: Pick<KitContext, 'workDir'>) => join(ctx.workDir, 'serving-sweep.out.json')

/**
 * The `sweep` command line the kit runs (after the node binary): the plan's space under --quick,
 * its load, and the optional flags this CLI has. Pure, so the kit's test plans exactly this call.
 */
export function sweepArgs(ctx: Pick<KitContext, 'plan' | 'cli' | 'workDir'>, modelPath: string, budgetS: number, has: SweepFlagsPresent): string[] {
  const s = ctx.plan.sweep
  const capacity = s.capacity && has.objectives && has.capacity
  // --time-budget covers the whole command (rounds, capacity searches, report) and ends it within
  // the budget plus one measurement: the step's whole budget, with no share guessed for capacity.
  // --quick: the quick space's base (threads, slots, flash attention) under the plan's overrides,
  // so no dimension of the standard space (continuous batching, micro-batch) multiplies the arms:
  // the first GPU run, without it, had 24 arms whose two rounds outran the lease.
  return [ctx.cli, 'sweep', '--engine', 'llamacpp', '--gguf', modelPath, '--backend', 'server', '--design', 'interleaved', '--quick',
    '--space', JSON.stringify(s.space), '--concurrency', String(s.concurrency), '--requests', String(s.requests),
    '--prompt-tokens', String(s.promptTokens), '--gen-tokens', String(s.outputTokens), '--rounds', String(s.rounds),
    '--time-budget', String(Math.floor(budgetS)),
    ...(has.objectives ? ['--slo', s.slo, '--objective', 'goodput'] : []),
    ...(capacity ? ['--capacity', '--capacity-by', 'concurrency'] : []),
    // The sweep is stored as a run: in a store of the kit's own, not the user's embedded one.
    ...(has.db ? ['--db', join(ctx.workDir, 'kit-runs.db')] : []),
    ...(has.out ? ['--out', sweepOutFile(ctx)] : []),
    '--json']
}

/**
 * The sweep's result: its --json on stdout when it finished, else (stopped by the kit's limit, or
 * dead) the last result it wrote to --out, the rounds measured so far (`partial: true`).
 */
export function sweepOutcome(r: ProcResult, outText: string | undefined): { result: unknown; from: 'stdout' | 'out' | null } {
  const printed = parseJsonOut(r)
  if (printed !== undefined) return { result: printed, from: 'stdout' }
  if (outText === undefined) return { result: null, from: null }
  try {
    return { result: JSON.parse(outText), from: 'out' }
  } catch {
    return { result: null, from: null }
  }
}

const readText = (path: string) => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

export async function servingSweep(ctx: KitContext, modelPath: string, budgetS: number): Promise<void> {
  const s = ctx.plan.sweep
  if (budgetS < 30) return skip(ctx, 'serving-sweep', 'the whole step', `only ${Math.round(budgetS)} s of the time budget left`)
  const objectives = await cliHas(ctx, ['sweep'], '--slo')
  const has = { objectives, db: await cliHas(ctx, ['sweep'], '--db'), capacity: s.capacity && objectives && (await cliHas(ctx, ['sweep'], '--capacity-by')), out: await cliHas(ctx, ['sweep'], '--out FILE') }
  const capacity = has.capacity
  const args = sweepArgs(ctx, modelPath, budgetS, has)
  if (!objectives) skip(ctx, 'serving-sweep', 'latency objectives (--slo, --objective goodput)', 'this CLI build has no --slo on sweep; ranked by decode tok/s instead')
  if (!capacity) skip(ctx, 'serving-sweep', 'capacity of the defaults and the winner', s.capacity ? 'this CLI build has no --capacity-by on sweep' : 'not searched in this variant (see kit-plan.ts)')
  ctx.log(`serving sweep: ${JSON.stringify(s.space)}, ${s.concurrency} in flight, budget ${Math.round(budgetS)} s`)
  // The budget binds the sweep to budgetS plus one measurement; the limit leaves room for one launch on a slow device.
  const r = await runProc(ctx.node, args, { timeoutMs: (budgetS + 90) * 1000, env: serverEnv(ctx), onStderr: progressOnly(ctx) })
  const { result, from } = sweepOutcome(r, has.out ? readText(sweepOutFile(ctx)) : undefined)
  const partial = from === 'out' ? (result as { phase?: string; rounds?: number }) : undefined
  if (r.timedOut) ctx.log(`the sweep outran the kit's limit (${Math.round(budgetS + 90)} s) and was stopped: ${partial ? `kept its result as of its last write (${partial.phase}, ${partial.rounds ?? 0} rounds)` : 'no result'}`)
  for (const line of launchLines(result)) ctx.log(`  ${line}`)
  writeResult(ctx, 'serving-sweep.json', {
    step: 'serving-sweep',
    // The command verbatim: the packed Node, the bundled CLI and every argument (issue 34).
    command: [ctx.node, ...args],
    exitCode: r.code,
    ...(r.timedOut ? { timedOut: true } : {}),
    seconds: r.seconds,
    ...(r.code === 0 || r.code === 3 ? {} : { stderrTail: r.stderrTail }),
    // 'out': the sweep did not finish; the result is what it wrote after its last round or search.
    resultFrom: from,
    result,
  })
}

export async function serveLevels(ctx: KitContext, modelPath: string): Promise<void> {
  const v = ctx.plan.serve
  const levels: unknown[] = []
  for (const c of v.concurrency) {
    if (secondsLeft(ctx) < 20) {
      skip(ctx, 'bench-serve', `concurrency ${c}`, 'under 20 s of the time budget left')
      continue
    }
    const args = [ctx.cli, 'bench', 'serve', '--engine', 'llamacpp', '--gguf', modelPath, '--concurrency', String(c),
      '--requests', String(v.requests(c)), '--prompt-tokens', String(v.promptTokens), '--output-tokens', String(v.outputTokens),
      // Goodput and feasibility under the same objectives as the sweep.
      '--slo', ctx.plan.sweep.slo, '--objective', 'goodput', '--json']
    ctx.log(`bench serve: defaults at concurrency ${c}, ${v.requests(c)} requests`)
    const r = await runProc(ctx.node, args, { timeoutMs: Math.max(30_000, secondsLeft(ctx) * 1000), env: serverEnv(ctx), onStderr: progressOnly(ctx) })
    levels.push({ concurrency: c, command: [ctx.node, ...args], exitCode: r.code, seconds: r.seconds, ...(r.code === 0 ? {} : { stderrTail: r.stderrTail }), result: parseJsonOut(r) ?? null })
    writeResult(ctx, 'bench-serve.json', {
      step: 'bench-serve',
      what: `llama-server with its default settings (every layer on the GPU by its own default), closed loop, ${v.promptTokens} prompt tokens and exactly ${v.outputTokens} output tokens per request; one launch per level; feasibility and goodput under ${ctx.plan.sweep.slo}`,
      levels,
    })
  }
}

/** The CLI's progress bars repaint many times a second: log only lines that say something new. */
function progressOnly(ctx: KitContext): (line: string) => void {
  let last = ''
  let at = 0
  return (line) => {
    const now = Date.now()
    if (line === last || (/\d+%/.test(line) && now - at < 10_000)) return
    last = line
    at = now
    ctx.log(`  ${line.slice(0, 200)}`)
  }
}
