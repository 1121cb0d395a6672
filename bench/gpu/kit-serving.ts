/**
 * Steps 2 and 3 of the GPU kit, through the bundled CLI as a user would run them: a serving sweep
 * of llama-server settings under concurrent load with latency objectives (goodput, the
 * recommended command line and its capacity, where this CLI has them), and `bench serve` of the
 * defaults at rising concurrency.
 */
import { join } from 'node:path'
import { secondsLeft, skip, writeResult, type KitContext } from './kit-context.ts'
import { launchLines } from './kit-launches.ts'
import { parseJsonOut, runProc } from './kit-proc.ts'

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
}

/**
 * The `sweep` command line the kit runs (after the node binary): the plan's space under --quick,
 * its load, and the optional flags this CLI has. Pure, so the kit's test plans exactly this call.
 */
export function sweepArgs(ctx: Pick<KitContext, 'plan' | 'cli' | 'workDir'>, modelPath: string, budgetS: number, has: SweepFlagsPresent): string[] {
  const s = ctx.plan.sweep
  const capacity = s.capacity && has.objectives && has.capacity
  // The capacity searches come after the rounds (at most 16 short closed-loop measurements each).
  const rounds = Math.max(20, Math.floor(budgetS - 20 - (capacity ? 80 : 0)))
  // --quick: the quick space's base (threads, slots, flash attention) under the plan's overrides,
  // so no dimension of the standard space (continuous batching, micro-batch) multiplies the arms:
  // the first GPU run, without it, had 24 arms whose two rounds outran the lease.
  return [ctx.cli, 'sweep', '--engine', 'llamacpp', '--gguf', modelPath, '--backend', 'server', '--design', 'interleaved', '--quick',
    '--space', JSON.stringify(s.space), '--concurrency', String(s.concurrency), '--requests', String(s.requests),
    '--prompt-tokens', String(s.promptTokens), '--gen-tokens', String(s.outputTokens), '--rounds', String(s.rounds),
    '--time-budget', String(rounds),
    ...(has.objectives ? ['--slo', s.slo, '--objective', 'goodput'] : []),
    ...(capacity ? ['--capacity', '--capacity-by', 'concurrency'] : []),
    // The sweep is stored as a run: in a store of the kit's own, not the user's embedded one.
    ...(has.db ? ['--db', join(ctx.workDir, 'kit-runs.db')] : []),
    '--json']
}

export async function servingSweep(ctx: KitContext, modelPath: string, budgetS: number): Promise<void> {
  const s = ctx.plan.sweep
  if (budgetS < 30) return skip(ctx, 'serving-sweep', 'the whole step', `only ${Math.round(budgetS)} s of the time budget left`)
  const objectives = await cliHas(ctx, ['sweep'], '--slo')
  const has = { objectives, db: await cliHas(ctx, ['sweep'], '--db'), capacity: s.capacity && objectives && (await cliHas(ctx, ['sweep'], '--capacity-by')) }
  const capacity = has.capacity
  const args = sweepArgs(ctx, modelPath, budgetS, has)
  if (!objectives) skip(ctx, 'serving-sweep', 'latency objectives (--slo, --objective goodput)', 'this CLI build has no --slo on sweep; ranked by decode tok/s instead')
  if (!capacity) skip(ctx, 'serving-sweep', 'capacity of the defaults and the winner', s.capacity ? 'this CLI build has no --capacity-by on sweep' : 'not searched in this variant (see kit-plan.ts)')
  ctx.log(`serving sweep: ${JSON.stringify(s.space)}, ${s.concurrency} in flight, budget ${Math.round(budgetS)} s`)
  const r = await runProc(ctx.node, args, { timeoutMs: (budgetS + 90) * 1000, env: serverEnv(ctx), onStderr: progressOnly(ctx) })
  const result = parseJsonOut(r)
  if (r.timedOut) ctx.log(`the sweep outran the kit's limit (${Math.round(budgetS + 90)} s) and was stopped: no result`)
  for (const line of launchLines(result)) ctx.log(`  ${line}`)
  writeResult(ctx, 'serving-sweep.json', {
    step: 'serving-sweep',
    // The command verbatim: the packed Node, the bundled CLI and every argument (issue 34).
    command: [ctx.node, ...args],
    exitCode: r.code,
    ...(r.timedOut ? { timedOut: true } : {}),
    seconds: r.seconds,
    ...(r.code === 0 || r.code === 3 ? {} : { stderrTail: r.stderrTail }),
    result: result ?? null,
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
