import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openStore } from '@kerneltune/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ShowOutput } from './run.ts'
import { cli, SMALL_RUN, tempDir } from './run.test-helpers.ts'

// `kerneltune run show` prints the run's one verdict, the one the dashboard shows (issue 34 item 11).
const t = tempDir('kt-run-verdict-')
const db = join(t.dir, 'kt.db')
afterAll(() => rmSync(t.dir, { recursive: true, force: true }))

describe('kerneltune run show: one verdict', () => {
  beforeAll(() => { t.file('request.json', SMALL_RUN) })

  it('should print the stored verdict of a 3-round interleaved run: keep the defaults, because 3 rounds cannot reach p < 0.05', async () => {
    const created = await cli(t.dir, ['run', 'create', 'request.json', '--design', 'interleaved', '--rounds', '3', '--db', db, '--json'])
    expect(created.code).toBe(0)
    const v = created.json.summary?.verdict
    expect(v).toMatchObject({ kind: 'keep-defaults', index: null, power: { rounds: 3, minRounds: 7, canDecide: false } })
    expect(v?.headline).toBe('Keep the defaults: 3 rounds cannot reach p < 0.05: the sign-flip test on throughputTps needs at least 7.')
    const human = (await cli(t.dir, ['run', 'show', created.json.id, '--db', db])).out
    const rows = human.split('\n')
    // One verdict row, the stored headline; no second verdict from the design; no winner named.
    expect(rows.filter((r) => /^verdict\s/.test(r))).toEqual([expect.stringMatching(/^verdict\s+Keep the defaults: 3 rounds cannot reach p < 0\.05/)])
    expect(human.match(/keep the defaults/gi)).toHaveLength(1)
    expect(rows.find((r) => /^winner\s/.test(r))).toMatch(/^winner\s+none: the defaults stay$/)
    // The A/A row says what the arm read, and why there is no false-winner rate to report.
    expect(rows.find((r) => /^A\/A check\s/.test(r))).toMatch(/read [+-]?\d+\.\d% on throughputTps against the defaults.*3 rounds cannot reach p < 0\.05.*no false-winner rate to report/)
    expect(human).not.toMatch(/sign-flip resamples would be called better/)
  })

  it('should withhold the verdict when the A/A arm read more than every candidate, and say so', async () => {
    const created = await cli(t.dir, ['run', 'create', 'request.json', '--design', 'interleaved', '--rounds', '3', '--db', db, '--json'])
    const id = created.json.id
    // What a loaded machine stores: the A/A arm at +460% on the design's metric, far beyond every candidate.
    const store = await openStore(`file:${db}`)
    try {
      const run = await store.runs.require(null, id)
      const { verdict: _stored, ...summary } = run.summary as Record<string, any>
      const e = summary.experiment
      const aa = { ...e.aa, comparison: { ...(e.aa.comparison ?? Object.values(e.paired).find(Boolean)), improvement: 4.6 } }
      // ...and a best candidate in `winner`, which the dashboard's headline once called the winner.
      const one = (await store.runs.combos(id)).find((c) => c.index === 1)!
      const winner = { index: 1, comboHash: one.comboHash, combo: one.combo, value: summary.baseline.value, improvement: 0, proxy: null, notMeasured: [], notToldApart: {} }
      // Its gate passed (a noisy run's can), so that only the verdict stands between it and an apply.
      await store.runs.finish(id, 'succeeded', { ...summary, winner, experiment: { ...e, aa } }, new Map([[1, { passed: true, reasons: [] }]]))
    } finally {
      await store.close()
    }
    const human = (await cli(t.dir, ['run', 'show', id, '--db', db])).out
    const verdictRows = human.split('\n').filter((r) => /^verdict\s/.test(r))
    expect(verdictRows).toEqual([expect.stringMatching(/^verdict\s+No verdict, the defaults stay: the A\/A arm \(the defaults against themselves\) read \+460\.0% on throughputTps, larger than every difference measured/)])
    expect(human).toMatch(/^A\/A check\s+.*the noise is larger than every effect measured\./m)
    expect(human).not.toMatch(/^winner\s+\{/m)
    expect(human).toMatch(/^not applied\s+#1 \{.*\} \(kerneltune run apply --force applies it anyway\)$/m)
    // The JSON carries the same one verdict, the stored one, and no decision beside it.
    const shown = (await cli<ShowOutput & { decision?: unknown }>(t.dir, ['run', 'show', id, '--db', db, '--json'])).json
    expect(shown.verdict).toMatchObject({ kind: 'withheld', index: null, headline: verdictRows[0]!.replace(/^verdict\s+/, '') })
    expect(shown.decision).toBeUndefined()
    // Applying follows the same verdict: refused without --force, translated with it.
    const refused = await cli(t.dir, ['run', 'apply', id, '--db', db])
    expect(refused.code).not.toBe(0)
    expect(refused.err).toMatch(/verdict keeps the defaults \(No verdict, the defaults stay: .*\); pass force to apply combination 1 anyway/)
    expect((await cli(t.dir, ['run', 'apply', id, '--force', '--db', db])).code).toBe(0)
  })
})
