import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { openStore, type Store } from '@kerneltune/store'
import type { RunCombo } from '@kerneltune/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runMain } from '../cli/testing.ts'
import { LEASE_MS, ownerLiveness, storedSweepSpec } from '@kerneltune/compose/node'
import { sweepFlagsOf, sweepSpecOf } from './sweep-resume.ts'

const dir = mkdtempSync(join(tmpdir(), 'kt-sweep-resume-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const MAIN = join(import.meta.dirname, '..', 'main.ts')
const GGUF = join(dir, 'tiny.gguf')

// threads 1 x flash attention x V cache: 3 candidates (one removed by llama.cpp's rule) after the
// defaults; every combination measured to 3 repetitions (no early stop), so a combination measured
// twice would show as 6.
const SWEEP = (db: string) => ['sweep', '--gguf', GGUF, '--quick', '--space', JSON.stringify({ threads: ['1'], flash_attn: ['auto', 'off'], cache_type_v: ['f16', 'q8_0'] }), '--reps', '3', '--no-early-stop', '--warmup', '0', '--prompt-tokens', '16', '--gen-tokens', '16', '--db', db, '--json']

function startSweep(db: string): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kerneltune/source', MAIN, ...SWEEP(db)], { cwd: join(import.meta.dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (b: Buffer) => void (out += b.toString()))
  child.stderr!.on('data', (b: Buffer) => void (err += b.toString()))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  return { child, out: () => out, err: () => err, exited }
}

/** Polls the store the child writes until its run has the baseline stored; returns the run id. */
async function baselineStored(store: Store, c: ReturnType<typeof startSweep>): Promise<string> {
  const t0 = Date.now()
  for (;;) {
    if (c.child.exitCode !== null) throw new Error(`the sweep exited (${c.child.exitCode}) before its baseline was seen: ${c.err()}`)
    if (Date.now() - t0 > 90_000) throw new Error(`no baseline stored in 90 s: ${c.err()}`)
    try {
      const id = (await store.runs.list(null, { limit: 1 })).items[0]?.id
      if (id && (await store.runs.combos(id)).some((x) => x.isBaseline && x.status === 'measured')) return id
    } catch {
      // The child may hold the database's write lock for a moment.
    }
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * Starts a sweep into its own database, waits for its stored baseline, and hands the child, the
 * store and the run to `body`; the child is killed and the store closed whatever happens.
 */
async function atBaseline(name: string, body: (c: ReturnType<typeof startSweep>, store: Store, runId: string, db: string) => Promise<void>): Promise<void> {
  const db = join(dir, name)
  const c = startSweep(db)
  const store = await openStore(db)
  try {
    await body(c, store, await baselineStored(store, c), db)
  } finally {
    if (c.child.exitCode === null) c.child.kill('SIGKILL')
    await store.close()
  }
}

const byIndex = (combos: readonly RunCombo[]) => new Map(combos.map((c) => [c.index, c]))

describe('a sweep whose process dies', () => {
  beforeAll(async () => {
    await writeGgufFile(GGUF, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 5 }).file)
  })

  it('should be refused while its process lives, resumable once it is killed, and keep what it measured', async () => {
    await atBaseline('kill.db', async (c, store, runId, db) => {
      // Frozen, not dead: the pid exists and the heartbeat is fresh, so a resume must refuse.
      c.child.kill('SIGSTOP')
      const owner = await store.runs.owner(runId)
      expect([owner?.pid, owner?.host]).toEqual([c.child.pid, hostname()])
      const refused = await runMain(['run', 'resume', runId, '--db', db], dir)
      expect(refused.code).toBe(1)
      expect(refused.err).toMatch(new RegExp(`run ${runId} is being measured by another process: pid ${c.child.pid} on .*add --force`))
      c.child.kill('SIGKILL')
      await c.exited
      const atKill = await store.runs.require(null, runId)
      expect(atKill.status).toBe('running')
      const before = await store.runs.combos(runId)
      const pending = before.filter((x) => x.status === 'pending')
      expect(pending.length, 'the sweep finished before it could be killed: nothing left to resume').toBeGreaterThan(0)

      const r = await runMain(['run', 'resume', runId, '--db', db, '--json'], dir)
      expect([0, 3], r.err).toContain(r.code)
      const j = JSON.parse(r.out)
      expect(j).toMatchObject({ ok: true, runId, measured: true })
      const after = byIndex(await store.runs.combos(runId))
      // Measured before the kill: kept as stored, the baseline included (real timings never repeat).
      for (const b of before.filter((x) => x.status === 'measured')) expect(after.get(b.index)!.repetitions).toEqual(b.repetitions)
      // Every combination measured exactly once: 3 repetitions each, none appended by a second measurement.
      expect([...after.values()].map((x) => [x.status, x.repetitions.length])).toEqual(before.map(() => ['measured', 3]))
      expect(j.baseline.reps).toEqual(before.find((x) => x.isBaseline)!.repetitions)
      const done = await store.runs.require(null, runId)
      expect([done.status, (done.summary as { experiment?: { design?: string } }).experiment?.design]).toEqual(['succeeded', 'sequential'])
      expect(await store.runs.owner(runId)).toBeNull()
    })
  }, 240_000)

  it('should leave an interrupted sweep queued, say its run and how to resume it, and release it', async () => {
    await atBaseline('int.db', async (c, store, runId, db) => {
      c.child.kill('SIGINT')
      expect(await c.exited).toBe(1)
      const j = JSON.parse(c.out())
      expect(j).toMatchObject({ ok: false, error: { code: 'CANCELLED', details: { runId, resume: `kerneltune sweep --resume ${runId}`, interrupted: true } } })
      expect(c.err()).toMatch(new RegExp(`continue it with kerneltune sweep --resume ${runId}`))
      const run = await store.runs.require(null, runId)
      expect([run.status, run.error]).toEqual(['queued', expect.stringMatching(/^interrupted/)])
      expect(await store.runs.owner(runId)).toBeNull()
      const list = await runMain(['run', 'list', '--db', db], dir)
      expect(list.out).toMatch(new RegExp(`${runId}\\s+interrupted \\(run resume\\)`))
    })
  }, 120_000)
})

describe('the stored sweep and its holder', () => {
  it('should store the flags that plan the same sweep, and parse them back with the command\'s table', () => {
    const spec = sweepSpecOf({ gguf: '/m.gguf', quick: true, reps: 3, noEarlyStop: true, backend: 'server', db: '/x.db', resume: 'r', force: true }, 8)
    expect(spec.argv).toEqual(['--gguf=/m.gguf', '--quick=true', '--reps=3', '--no-early-stop=true', '--backend=server'])
    expect(sweepFlagsOf(spec)).toMatchObject({ gguf: '/m.gguf', quick: true, reps: 3, noEarlyStop: true, backend: 'server', warmup: 1 })
    expect(storedSweepSpec({ target: { options: { sweep: spec } } } as never)).toEqual(spec)
    expect(storedSweepSpec({ target: { options: {} } } as never)).toBeUndefined()
  })

  it('should take a holder for dead when its pid is gone on this host or its heartbeat is past the lease elsewhere', () => {
    const at = Date.parse('2026-01-01T00:00:00Z')
    const owner = { id: 'x', pid: 42, host: 'here', startedAt: '2026-01-01T00:00:00Z', heartbeatAt: '2026-01-01T00:00:00Z' }
    expect(ownerLiveness(owner, { now: at + 1000, host: 'here', exists: () => true }).alive).toBe(true)
    expect(ownerLiveness(owner, { now: at + 1000, host: 'here', exists: () => false })).toMatchObject({ alive: false, why: expect.stringMatching(/no such process/) })
    expect(ownerLiveness(owner, { now: at + 1000, host: 'there', exists: () => false }).alive).toBe(true)
    expect(ownerLiveness(owner, { now: at + LEASE_MS + 1000, host: 'there' })).toMatchObject({ alive: false, why: expect.stringMatching(/lease/) })
  })
})
