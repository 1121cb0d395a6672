import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCatalog } from '@kerneltune/catalog'
import { defaultRegistry, openStoreAt } from '@kerneltune/compose/node'
import { runTune } from '@kerneltune/tuner'
import type { TokenCreated, TuneSessionDetail } from '@kerneltune/web/api-types'
import { cli, SMALL_RUN, tempDir, type CliFailure } from './run.test-helpers.ts'

// kerneltune tune … and token create against the embedded store (a temporary SQLite file).
const t = tempDir('kt-tune-cli-')
const db = join(t.dir, 'kt.db')
afterAll(() => rmSync(t.dir, { recursive: true, force: true }))

describe('kerneltune tune (embedded store)', () => {
  let runId: string
  beforeAll(async () => {
    // On this vllm space the analytical backend finds every dimension flat: sessions search the kept ones.
    t.file('request.json', SMALL_RUN)
    t.file('flat.json', SMALL_RUN)
    runId = (await cli(t.dir, ['run', 'create', 'request.json', '--db', db, '--json'])).json.id
  })

  it('should start a session from a run, run its trials and show its status', async () => {
    const start = await cli<TuneSessionDetail>(t.dir, ['tune', 'start', runId, '--trials', '3', '--strategy', 'random', '--keep', 'attention_backend,activation_dtype', '--db', db, '--json'])
    expect(start.code).toBe(0)
    expect(start.json).toMatchObject({ runId, status: 'completed', trialsDone: 3, strategy: 'random' })
    expect(start.json.trials).toHaveLength(3)
    expect(typeof start.json.best?.value).toBe('number')
    const status = await cli(t.dir, ['tune', 'status', start.json.id, '--db', db, '--json'])
    expect(status.json).toMatchObject({ id: start.json.id, status: 'completed', trialsDone: 3 })
    const human = await cli(t.dir, ['tune', 'status', start.json.id, '--db', db])
    expect(human.out).toMatch(/status\s+completed/)
  })

  it('should resume a paused session where it stopped, every trial exactly once, and cancel one', async () => {
    // Start without running (--trials 4, then pause after the first trial through the library).
    const store = await openStoreAt(db)
    const registry = defaultRegistry()
    const { startTune } = await import('@kerneltune/tuner')
    const session = await startTune(store, { runId, budget: { trials: 4 }, strategy: 'random', keep: ['attention_backend', 'activation_dtype'] }, { registry, catalog: buildCatalog(registry), tenant: 'default' })
    const ac = new AbortController()
    await runTune(session.id, { store, registry, catalog: buildCatalog(registry), signal: ac.signal, onEvent: (e) => { if (e.type === 'trial') ac.abort('pause') } })
    expect((await store.tune.require(null, session.id)).status).toBe('paused')
    await store.close()

    const resumed = await cli<TuneSessionDetail>(t.dir, ['tune', 'resume', session.id, '--db', db, '--json'])
    expect(resumed.code).toBe(0)
    expect(resumed.json).toMatchObject({ status: 'completed', trialsDone: 4 })
    expect(resumed.json.trials.map((x) => x.index)).toEqual([0, 1, 2, 3])

    const other = await cli(t.dir, ['tune', 'start', runId, '--trials', '2', '--keep', 'attention_backend', '--no-watch', '--db', db, '--json'])
    const cancel = await cli(t.dir, ['tune', 'cancel', other.json.id, '--db', db, '--json'])
    expect(cancel.json).toMatchObject({ id: other.json.id, status: 'cancelled' })
    const done = await cli(t.dir, ['tune', 'cancel', session.id, '--db', db, '--json'])
    expect(done.json).toMatchObject({ status: 'completed' })
  }, 60_000)

  it('should reject bad flags and unknown ids with exit 2', async () => {
    const noBudget = await cli(t.dir, ['tune', 'start', runId, '--db', db])
    expect(noBudget.code).toBe(2)
    const trials = await cli(t.dir, ['tune', 'start', runId, '--trials', '0', '--db', db])
    expect([trials.code, /--trials/.test(trials.err)]).toEqual([2, true])
    const strategy = await cli(t.dir, ['tune', 'start', runId, '--trials', '2', '--strategy', 'nope', '--db', db])
    expect([strategy.code, /nope/.test(strategy.err)]).toEqual([2, true])
    const unknownRun = await cli(t.dir, ['tune', 'start', 'no-such-run', '--trials', '2', '--db', db])
    expect([unknownRun.code, /no-such-run/.test(unknownRun.err)]).toEqual([2, true])
    for (const sub of ['status', 'resume', 'cancel']) {
      const r = await cli<CliFailure | undefined>(t.dir, ['tune', sub, 'no-such-session', '--db', db, '--json'])
      expect([sub, r.code, r.json?.ok]).toEqual([sub, 2, false])
    }
    const flat = (await cli(t.dir, ['run', 'create', 'flat.json', '--db', db, '--json'])).json.id
    const nothing = await cli(t.dir, ['tune', 'start', flat, '--trials', '2', '--db', db])
    expect([nothing.code, /nothing to search/.test(nothing.err)]).toEqual([2, true])
    const kept = await cli(t.dir, ['tune', 'start', flat, '--trials', '2', '--keep', 'attention_backend', '--strategy', 'random', '--db', db, '--json'])
    expect(kept.json).toMatchObject({ status: 'completed', trialsDone: 2 })
    const noId = await cli(t.dir, ['tune', 'status', '--db', db])
    expect([noId.code, /SESSION_ID/.test(noId.err)]).toEqual([2, true])
  })
})

describe('kerneltune token create (embedded store)', () => {
  it('should mint a token once with its role and tenant, and refuse an unknown role', async () => {
    const r = await cli<TokenCreated>(t.dir, ['token', 'create', '--role', 'operator', '--tenant', 'acme', '--label', 'ci', '--db', db, '--json'])
    expect(r.code).toBe(0)
    expect(r.json).toMatchObject({ role: 'operator', tenant: 'acme', label: 'ci' })
    expect(r.json.token.length).toBeGreaterThan(20)
    const store = await openStoreAt(db)
    expect((await store.tokens.verify(r.json.token))?.role).toBe('operator')
    await store.close()
    const bad = await cli(t.dir, ['token', 'create', '--role', 'root', '--db', db])
    expect([bad.code, /--role/.test(bad.err)]).toEqual([2, true])
  })
})

describe('--help and --json on every run, tune, token and serve command', () => {
  const commands = [['run', 'create'], ['run', 'list'], ['run', 'show'], ['run', 'watch'], ['run', 'cancel'], ['run', 'apply'],
    ['tune', 'start'], ['tune', 'status'], ['tune', 'watch'], ['tune', 'resume'], ['tune', 'cancel'], ['token', 'create'], ['token', 'list'], ['token', 'revoke'], ['token', 'audit'], ['serve']]
  it('should print help naming --json and the JSON shape, exit 0', async () => {
    for (const c of commands) {
      const r = await cli(t.dir, [...c, '--help'])
      expect([c.join(' '), r.code]).toEqual([c.join(' '), 0])
      expect(r.out).toContain('--json')
      expect(r.out).toContain(c.at(-1)!)
    }
  })
})

describe('kerneltune tune start --slo --objective', () => {
  it('should store the session\'s objectives, refuse unknown ones, and show them', async () => {
    const db3 = join(t.dir, 'tune-objectives.db')
    t.file('small.json', SMALL_RUN)
    const runId = (await cli(t.dir, ['run', 'create', 'small.json', '--db', db3, '--json'])).json.id
    const bad = await cli(t.dir, ['tune', 'start', runId, '--trials', '2', '--db', db3, '--objective', 'fastest'])
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/unknown objective 'fastest'; accepted: goodput, outputTokensPerSecond, requestThroughput, ttft_mean_ms/)
    const start = await cli<TuneSessionDetail>(t.dir, ['tune', 'start', runId, '--trials', '2', '--strategy', 'random', '--keep', 'attention_backend', '--slo', 'e2e_p99_ms=100', '--objective', 'e2e_p99_ms', '--db', db3, '--json'])
    expect(start.code).toBe(0)
    expect(start.json.narrowing).toMatchObject({ slo: { e2e_p99_ms: 100 }, objective: 'e2e_p99_ms' })
    const human = await cli(t.dir, ['tune', 'status', start.json.id, '--db', db3])
    expect(human.out).toMatch(/objectives\s+E2E p99 ≤ 100 ms; trials valued by e2e_p99_ms/)
    expect(human.out).toMatch(/trials\s+2 \(/)
  })
})
