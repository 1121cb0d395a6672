/** kerneltune run create|list|show|watch|cancel|apply: Tier 1 runs, embedded or against a server. */
import { formatCommandLine, KerneltuneError } from '@kerneltune/core'
import { runRows } from '@kerneltune/compose/node'
import { describeViolation } from '@kerneltune/serving'
import { runRecordLines } from '@kerneltune/tuner'
import { defineCommand, type CommandContext } from '../cli/command.ts'
import { keyValues, progressBar, table } from '../cli/output.ts'
import type { ApplyResult, RunCombo, RunDetail } from '@kerneltune/web/api-types'
import { TARGET_FLAGS, withKernelsClient, type KernelsClient, type StreamEvents } from '../store-location.ts'
import { capacityLine } from './bench/capacity-line.ts'
import { buildRunRequest, requireId, RUN_REQUEST_FLAGS } from './run-request.ts'
import { OBJECTIVE_FLAGS, writeRecords } from './shared/objectives-flags.ts'

type RunEventOf<T extends StreamEvents['runs']['type']> = Extract<StreamEvents['runs'], { type: T }>

/** Follows a run with a progress bar; its final event, or undefined when the stream ended without one. */
async function watch(ctx: Pick<CommandContext, 'io' | 'json'>, c: KernelsClient, id: string): Promise<RunEventOf<'run.finished'> | undefined> {
  let bar: ReturnType<typeof progressBar> | undefined
  let final: RunEventOf<'run.finished'> | undefined
  await c.follow('runs', id, (e) => {
    if (e.type === 'run.started') bar = progressBar(ctx.io, `run ${id}`, e.total, !ctx.json)
    if (e.type === 'state') bar ??= progressBar(ctx.io, `run ${id}`, e.progress.total, !ctx.json)
    if (e.type === 'progress') bar?.update(e.done)
    if (e.type === 'run.finished') (final = e, bar?.done(e.status))
  })
  return final
}

/** `run show`'s JSON: the run and its combinations, with what the objectives say of each when it has them. */
export type ShowOutput = { run: RunDetail; combos: (RunCombo & Partial<ObjectivesOf>)[]; verdict?: ShownVerdict; objective?: string; slo?: Objectives['slo']; pareto?: number[]; paretoAxes?: Objectives['paretoAxes'] }
type Objectives = NonNullable<NonNullable<RunDetail['summary']>['objectives']>
/** The run's one verdict, as stored; what the objectives alone decided is its evidence, nested under it. */
type ShownVerdict = Partial<NonNullable<NonNullable<RunDetail['summary']>['verdict']>> & { evidence?: { objectives: Objectives['decision'] } }
type ObjectivesOf = Pick<Objectives['candidates'][number], 'feasible' | 'violations' | 'goodput' | 'objectiveValue'>

export const runCommand = defineCommand({
  name: 'run',
  summary: 'Tier 1 runs: sweep the legal combinations through a measurement backend',
  subcommands: [
    defineCommand({
      name: 'create', summary: 'Create a run from a JSON request file and/or flags and (embedded) run it, or (--server) queue it',
      positionals: ['[REQUEST.json]'], flags: [...TARGET_FLAGS, ...RUN_REQUEST_FLAGS, { name: 'watch', type: 'boolean', description: 'Follow the run to the end', default: true }] as const,
      jsonOutput: 'the Run (after it finishes when watching)',
      examples: ['kerneltune run create request.json', 'kerneltune run create request.json --server http://127.0.0.1:8080 --token T', 'kerneltune run create --gguf m.gguf --reps 3 --prompt-tokens 64 --gen-tokens 16'],
      async run(ctx) {
        if (ctx.positionals.length > 1) throw new KerneltuneError('INVALID_INPUT', `run create takes at most one REQUEST.json, got ${ctx.positionals.length} arguments`)
        const body = await buildRunRequest(ctx.positionals[0], ctx.flags, ctx.io.cwd)
        return withKernelsClient(ctx.flags, ctx.io.env, async (c) => {
          const created = await c.call('POST /runs', { body })
          if (ctx.flags.watch) await watch(ctx, c, created.id)
          const run = await c.call('GET /runs/{id}', { params: { id: created.id } })
          if (ctx.json) ctx.printJson(run)
          else ctx.io.stdout(runSummary(run))
          return run.status === 'failed' ? 1 : 0
        })
      },
    }),
    defineCommand({ name: 'list', summary: 'List runs', flags: [...TARGET_FLAGS] as const, jsonOutput: '{ items: Run[], total }', async run(ctx) {
      return withKernelsClient(ctx.flags, ctx.io.env, async (c) => {
        const r = await c.call('GET /runs')
        if (ctx.json) ctx.printJson(r)
        // A run an interrupt put back in the queue (a sweep's, SIGINT) reads as what it is: resumable.
        else ctx.io.stdout(table(r.items.map((x) => [x.id, (x.status === 'queued' && /^interrupted/.test(x.error ?? '')) || x.interrupted ? 'interrupted (run resume)' : x.status, x.mode, x.target.engine, `${x.progress.done}/${x.progress.total}`, x.backend, x.createdAt]), ['id', 'status', 'mode', 'engine', 'progress', 'backend', 'created']))
      })
    } }),
    defineCommand({
      name: 'resume', summary: 'Continue a run left unfinished by a process that died or was interrupted: a sweep\'s run with the flags it stored (as sweep --resume), any other run here',
      description: 'A sweep\'s run (kerneltune sweep, demo) is measured again by the sweep with its stored flags, backend and design: sequential keeps the combinations already measured and measures the rest; interleaved starts its rounds again (a round cut by a crash would pair measurements from two times). Refused while the process that holds the run is alive (same host: its pid exists; another host: its heartbeat is under a minute old); --force takes it over. Other runs in the embedded store are continued here as run watch does.',
      positionals: ['RUN_ID'], flags: [...TARGET_FLAGS, { name: 'force', type: 'boolean', description: 'Take the run over even if the process holding it looks alive', default: false }] as const,
      jsonOutput: 'a sweep\'s run: the sweep\'s --json; another run: the Run once finished',
      examples: ['kerneltune run resume 3f1c0b9e-…', 'kerneltune run resume RUN_ID --db /tmp/kt.db --force'],
      async run(ctx) {
        const id = requireId(ctx.positionals, 'RUN_ID')
        if (!ctx.flags.server) {
          const { resumeSweepRun } = await import('./sweep.ts')
          const code = await resumeSweepRun(ctx, id, { ...(ctx.flags.db ? { db: ctx.flags.db } : {}), force: ctx.flags.force === true })
          if (code !== undefined) return code
        }
        return withKernelsClient(ctx.flags, ctx.io.env, async (c) => {
          await watch(ctx, c, id)
          const run = await c.call('GET /runs/{id}', { params: { id } })
          if (ctx.json) ctx.printJson(run)
          else ctx.io.stdout(runSummary(run))
          return run.status === 'failed' ? 1 : 0
        })
      },
    }),
    ...(['show', 'watch', 'cancel', 'apply'] as const).map((name) => defineCommand({
      name, summary: { show: 'Show a run and its combinations', watch: 'Follow a run with a progress bar', cancel: 'Cancel a run', apply: 'Translate the winner for the engine (flags, env, files)' }[name],
      positionals: ['RUN_ID'], flags: [...TARGET_FLAGS, { name: 'deployment', type: 'string', description: 'apply: also set it on this deployment', valueName: 'ID' }, { name: 'force', type: 'boolean', description: 'apply: even if the gate rejected it or the run\'s verdict keeps the defaults', default: false }, { ...OBJECTIVE_FLAGS[2], description: `show: ${OBJECTIVE_FLAGS[2].description} (runs on the server backend; candidate is the combination index)` }] as const,
      jsonOutput: { show: '{ run, combos (with feasible, violations, goodput under objectives), verdict?: { the run\'s one verdict as stored (kind, index, headline, reasons, figures, recommendedArgv), evidence?: { objectives: { winner, defaultsFeasible, reason, test } (what the objectives alone found) } }, objective?, slo?, pareto?, paretoAxes? }', watch: 'the final run event', cancel: '{ id, status }', apply: 'ApplyResult { combo, translation, deployment }' }[name],
      async run(ctx) {
        const id = requireId(ctx.positionals, 'RUN_ID')
        return withKernelsClient(ctx.flags, ctx.io.env, async (c) => {
          const params = { id }
          if (name === 'show') {
            const combos = (await c.call('GET /runs/{id}/combos', { params })).items
            if (ctx.flags.records) ctx.io.stderr(`records: ${await writeRecords(ctx.io, ctx.flags.records, runRecordLines(combos))}\n`)
            const out = withObjectives(await c.call('GET /runs/{id}', { params }), combos)
            return ctx.json ? ctx.printJson(out) : ctx.io.stdout(runSummary(out.run) + '\n' + combosTable(out))
          }
          if (name === 'apply') {
            const out: ApplyResult = await c.call('POST /runs/{id}/apply', { params, body: { ...(ctx.flags.deployment ? { deploymentId: ctx.flags.deployment } : {}), ...(ctx.flags.force ? { force: true } : {}) } })
            if (ctx.json) return ctx.printJson(out)
            // Warnings go to stderr, so that stdout stays the command line and environment to use.
            for (const w of out.warnings) ctx.io.stderr(`warning: ${w}\n`)
            const t = out.translation
            if (!t.ok) throw new KerneltuneError('UNSUPPORTED_COMBINATION', `${t.engine} ${t.version} refuses the winner's ${t.dimension}=${t.value}: ${t.reason}`)
            // Quoted for a POSIX shell: the JSON values a translation carries would be brace-expanded.
            return ctx.io.stdout(`${formatCommandLine(t, { env: 'export', multiline: true })}\n`)
          }
          const out = name === 'watch' ? await watch(ctx, c, id) : await c.call('POST /runs/{id}/cancel', { params })
          if (ctx.json) ctx.printJson(out ?? null)
          else ctx.io.stdout(`${out?.status ?? ''}\n`)
        })
      },
    })),
  ],
})

/** `run show`'s JSON: the run's verdict; with objectives, each combination's feasibility, violations and goodput, and the run's objective, objectives and front (the sweep's --json shapes). */
function withObjectives(run: RunDetail, combos: RunCombo[]): ShowOutput {
  const o = run.summary?.objectives
  const stored = run.summary?.verdict
  // One verdict is printed, the stored one (issue 36: the objectives' decision once sat beside it and could say otherwise).
  const verdict: ShownVerdict | undefined = stored || o ? { ...stored, ...(o ? { evidence: { objectives: o.decision } } : {}) } : undefined
  if (!o) return { run, combos, ...(verdict ? { verdict } : {}) }
  const per = new Map(o.candidates.map((c) => [c.index, c]))
  return {
    run,
    combos: combos.map((x) => {
      const c = per.get(x.index)
      return c ? { ...x, feasible: c.feasible, violations: c.violations, ...(c.goodput ? { goodput: c.goodput } : {}), objectiveValue: c.objectiveValue } : x
    }),
    ...(verdict ? { verdict } : {}),
    objective: o.objective, slo: o.slo, pareto: o.pareto, paretoAxes: o.paretoAxes,
  }
}

function combosTable(out: ShowOutput): string {
  const o = out.objective !== undefined
  const rows = out.combos.map((x) => [
    x.index, x.status, x.isBaseline ? 'yes' : '', x.cached ? 'yes' : '', measuredAs(out.run, x), x.metrics?.throughputTps?.toFixed(2) ?? '', x.metrics?.latencyP50Ms?.toFixed(3) ?? '',
    ...(o ? [x.goodput ? x.goodput.requestsPerSecond.toFixed(2) : '', x.feasible === undefined ? '' : x.feasible ? 'meets' : `misses: ${(x.violations ?? []).map(describeViolation).join('; ')}`, out.pareto?.includes(x.index) ? 'yes' : ''] : []),
    JSON.stringify(x.combo),
  ])
  return table(rows, ['#', 'status', 'baseline', 'cached', 'measured as', 'tps', 'p50 ms', ...(o ? ['goodput req/s', 'objectives', 'Pareto'] : []), 'combo'])
}

/** How a combination's numbers were obtained: a proxy of the target, a prediction, or a measurement of it. */
function measuredAs(run: RunDetail, combo: RunCombo): string {
  const proxy = combo.proxy ?? run.summary?.proxy
  if (proxy) return `proxy (${proxy.engine && proxy.device ? 'engine+device' : proxy.engine ? 'engine' : 'device'})`
  return combo.simulated ? 'simulated' : combo.status === 'measured' ? 'measured' : ''
}

/** A run in words (compose's rows), its capacity search in the words bench capacity prints. */
const runSummary = (run: RunDetail): string => keyValues(runRows(run, (c) => capacityLine(c).replace(/^capacity: /, '')))
