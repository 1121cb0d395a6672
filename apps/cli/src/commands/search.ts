/**
 * `kerneltune search --replay FILE.csv`: runs BO, TPE or random search over a measured search
 * space (a brute-force CSV), looking values up instead of measuring, and prints the best
 * configuration and the per-evaluation trace. A live search (measuring for real) is Tier 2's job:
 * without --replay the command says so instead of pretending.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { KerneltuneError } from '@kerneltune/core'
import { parseReplayCsv, replaySearch, STRATEGIES, type StrategyName } from '@kerneltune/bayesian-optimizer'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, progressBar } from '../cli/output.ts'

export const searchCommand = defineCommand({
  name: 'search',
  summary: 'Search a tuning space with Bayesian optimisation, TPE or random search (replaying a measured space).',
  description:
    'With --replay FILE.csv the file is the objective: parameter columns come before `status`, rows whose status is not ok are configurations that fail, and --objective (default time_ms) is minimised. Only configurations present in the file are suggested, none twice. Searching a live objective needs the Tier 2 tuner (`kerneltune tune start`).',
  flags: [
    { name: 'replay', type: 'string', description: 'Replay this measured search space (CSV) as the objective.', valueName: 'FILE' },
    { name: 'objective', type: 'string', description: 'CSV column to minimise.', default: 'time_ms', valueName: 'COLUMN' },
    { name: 'strategy', type: 'string', description: 'Search strategy.', choices: STRATEGIES, default: 'bo' },
    { name: 'budget', type: 'integer', description: 'Evaluations (capped at the number of configurations).', default: 100, min: 1 },
    { name: 'seed', type: 'integer', description: 'Random seed; the same seed gives the same search.', default: 0 },
    { name: 'batch', type: 'integer', description: 'Suggestions per round, as for parallel workers.', default: 1, min: 1, max: 256 },
    { name: 'acquisition', type: 'string', description: 'BO acquisition function: expected improvement or upper confidence bound.', choices: ['ei', 'ucb'], default: 'ei' },
  ],
  examples: [
    'kerneltune search --replay ../shared/data/autotuning/gemm_clblast_xgemm_RTX_3090.csv --strategy bo --budget 100 --seed 1',
    'kerneltune search --replay conv.csv --strategy tpe --budget 200 --seed 3 --json',
  ],
  jsonOutput: '{ best: { ...params, value } | null, trace: [{ evaluation, value (null when the configuration failed), best (null until one succeeds), params }] }',
  async run(ctx) {
    const f = ctx.flags
    if (!f.replay) {
      throw new KerneltuneError('INVALID_INPUT', 'live search measures each configuration and needs the Tier 2 tuner (`kerneltune tune start`); to search a measured space offline, pass --replay FILE.csv')
    }
    const path = resolve(ctx.io.cwd, f.replay)
    const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new KerneltuneError('INVALID_INPUT', `cannot read --replay ${path}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`)
    })
    const table = parseReplayCsv(text, f.objective ?? 'time_ms')
    const strategy = (f.strategy ?? 'bo') as StrategyName
    const budget = Math.min(f.budget ?? 100, table.rows.length)
    const bar = progressBar(ctx.io, `search ${strategy}`, budget)
    const started = Date.now()
    const result = replaySearch(table, {
      strategy,
      seed: f.seed ?? 0,
      budget,
      batch: f.batch ?? 1,
      bo: { acquisition: (f.acquisition ?? 'ei') as 'ei' | 'ucb' },
      onProgress: (done, _total, best) => bar.update(done, best === null ? '' : `best ${best}`),
    })
    bar.done()
    if (ctx.json) {
      ctx.printJson({ best: result.best, trace: result.trace })
      return
    }
    const best = result.best
    const foundAt = best ? result.trace.find((e) => e.value === best.value)?.evaluation : undefined
    const params = best ? Object.entries(best).filter(([k]) => k !== 'value' || table.params.some((p) => p.name === 'value')).map(([k, v]) => `${k}=${v}`).join(' ') : '-'
    ctx.io.stdout(keyValues([
      ['file', path],
      ['strategy', strategy],
      ['configurations', `${table.rows.length} (${table.rows.filter((r) => !r.ok).length} fail)`],
      ['evaluations', `${result.trace.length} (${result.trace.filter((e) => e.value === null).length} failed), ${fmt((Date.now() - started) / 1000, 1)} s`],
      ['best', best ? `${best.value} ${table.objective} at evaluation ${foundAt}` : 'none (every evaluation failed)'],
      ['space best', `${table.optimum} ${table.objective}${best ? ` (found ${fmt((best.value / table.optimum - 1) * 100, 2)}% above it)` : ''}`],
      ['parameters', params],
    ]))
  },
})
