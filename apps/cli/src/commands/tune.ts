/** kerneltune tune start|status|watch|resume|cancel: Tier 2 tune sessions. */
import { defineCommand } from '../cli/command.ts'
import { keyValues, progressBar } from '../cli/output.ts'
import type { TuneSessionDetail } from '@kerneltune/web/api-types'
import { TARGET_FLAGS, withKernelsClient } from '../store-location.ts'
import { describeSlo, resolveObjectives } from '@kerneltune/serving'
import { z } from 'zod'
import { objectiveFields, requireId, RUN_OBJECTIVE_FLAGS } from './run-request.ts'

export const tuneCommand = defineCommand({
  name: 'tune',
  summary: 'Tier 2 tune sessions: Bayesian search seeded by a Tier 1 run, resumable',
  subcommands: (['start', 'status', 'watch', 'resume', 'cancel'] as const).map((name) => defineCommand({
    name,
    summary: { start: 'Start a session from a run', status: 'Status and best-so-far', watch: 'Follow a session (embedded: run it here)', resume: 'Resume a paused or crashed session', cancel: 'Halt and persist' }[name],
    positionals: [name === 'start' ? 'RUN_ID' : 'SESSION_ID'],
    flags: [...TARGET_FLAGS,
      { name: 'trials', type: 'integer', description: 'start: trial budget', min: 1 },
      { name: 'minutes', type: 'number', description: 'start: wall-clock budget' },
      { name: 'strategy', type: 'string', description: 'start: bo, tpe, random or tuner-random', default: 'bo' },
      { name: 'keep', type: 'string', description: 'start: comma-separated dimensions to search even if the run found them insensitive', valueName: 'DIMS' },
      { name: 'seed', type: 'integer', description: 'start: seed of the strategy', min: 0 },
      // Without them a session takes the run's objectives (if it had any).
      ...RUN_OBJECTIVE_FLAGS.map((f) => ({ ...f, description: `start: ${f.description} Default: the run's.` })),
      { name: 'watch', type: 'boolean', description: 'start: follow the session to the end; --no-watch only starts it (embedded: creates it, to be run by tune watch)', default: true }] as const,
    jsonOutput: 'the TuneSession',
    async run(ctx) {
      const id = requireId(ctx.positionals, name === 'start' ? 'RUN_ID' : 'SESSION_ID')
      // The same calls with and without --server: embedded, the CLI runs the server app in-process.
      return withKernelsClient(ctx.flags, ctx.io.env, async (c) => {
        let sid = id
        const follow = async (sid: string) => {
          const total = (await c.call('GET /tune/{id}', { params: { id: sid } })).budget.trials ?? 0
          const bar = progressBar(ctx.io, `tune ${sid}`, total, !ctx.json)
          await c.follow('tune', sid, (e) => { if (e.type === 'trial') bar.update(e.index + 1, e.best ? `best ${e.best.value.toFixed(3)}` : '') })
          bar.done()
        }
        if (name === 'start') {
          sid = (await c.call('POST /tune', { body: { runId: id, strategy: ctx.flags.strategy, budget: { ...(ctx.flags.trials ? { trials: ctx.flags.trials } : {}), ...(ctx.flags.minutes ? { minutes: ctx.flags.minutes } : {}) }, ...(ctx.flags.keep ? { keep: ctx.flags.keep.split(',').map((d) => d.trim()).filter(Boolean) } : {}), ...(ctx.flags.seed !== undefined ? { seed: ctx.flags.seed } : {}), ...objectiveFields(ctx.flags) } })).id
          if (ctx.flags.watch) await follow(sid)
        } else if (name === 'watch' || name === 'resume') {
          if (name === 'resume') await c.call('POST /tune/{id}/resume', { params: { id } })
          await follow(id)
        } else if (name === 'cancel') await c.call('POST /tune/{id}/cancel', { params: { id } })
        const s = await c.call('GET /tune/{id}', { params: { id: sid } })
        if (ctx.json) ctx.printJson(s)
        else ctx.io.stdout(sessionText(s))
        // As `run create`: a session that failed (its error is in the output) exits 1.
        return s.status === 'failed' ? 1 : 0
      })
    },
  })),
})

/** What `tune status` reads of a session's narrowing (the tuner's, with the objectives it searched under); free-form in the API. */
const StoredNarrowing = z.object({ objective: z.string().optional(), slo: z.record(z.string(), z.number()).optional(), dropped: z.record(z.string(), z.unknown()).optional() })

/** A session in words: its objectives, its trials by outcome (infeasible apart from failed) and the best feasible one. */
function sessionText(s: TuneSessionDetail): string {
  const read = StoredNarrowing.safeParse(s.narrowing)
  const n = read.success ? read.data : {}
  const trials = s.trials
  const count = (o: string) => trials.filter((t) => t.outcome === o).length
  const rows: [string, unknown][] = [['id', s.id], ['status', s.status], ['trials', `${s.trialsDone}${trials.length ? ` (${count('ok')} ok, ${count('infeasible')} infeasible: ran but missed an objective, ${count('failed')} failed: did not run)` : ''}`]]
  if (n.objective) {
    const { slo } = resolveObjectives({ slo: n.slo, objective: n.objective })
    rows.push(['objectives', `${slo.length ? describeSlo(slo) : 'none stated'}; trials valued by ${n.objective}`])
  }
  rows.push(['best', s.best ? `${s.best.value} ${JSON.stringify(s.best.config)}${n.objective ? ' (the best trial that meets the objectives)' : ''}` : n.objective && trials.length ? 'none meets the objectives' : '-'])
  rows.push(['dropped', Object.keys(n.dropped ?? {}).join(', ')])
  if (s.error) rows.push(['error', s.error])
  return keyValues(rows)
}
