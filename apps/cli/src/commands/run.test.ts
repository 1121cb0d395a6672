import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatCommandLine } from '@kerneltune/core'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import type { ApplyResult, RunList } from '@kerneltune/web/api-types'
import type { ShowOutput } from './run.ts'
import { cli, SMALL_RUN, tempDir, translated } from './run.test-helpers.ts'

// kerneltune run … against the embedded store (a temporary SQLite file per suite).
const t = tempDir('kt-run-cli-')
const db = join(t.dir, 'kt.db')
afterAll(() => rmSync(t.dir, { recursive: true, force: true }))

describe('kerneltune run (embedded store)', () => {
  let request: string
  let runId: string
  beforeAll(() => { request = t.file('request.json', SMALL_RUN) })

  it('should create and run a run, then list, show, watch and apply it', async () => {
    const created = await cli(t.dir, ['run', 'create', 'request.json', '--db', db, '--json'])
    expect(created.code).toBe(0)
    const run = created.json
    runId = run.id
    expect(run).toMatchObject({ status: 'succeeded', backend: 'analytical', tenant: 'default' })
    expect(run.progress.done).toBe(run.progress.total)
    expect(run.summary?.simulated).toBe(true)

    const list = await cli<RunList>(t.dir, ['run', 'list', '--db', db, '--json'])
    expect(list.code).toBe(0)
    expect(list.json.items.map((r: { id: string }) => r.id)).toContain(runId)

    const show = await cli<ShowOutput>(t.dir, ['run', 'show', runId, '--db', db, '--json'])
    expect(show.json.run.id).toBe(runId)
    expect(show.json.combos).toHaveLength(run.progress.total)
    expect(show.json.combos.filter((c: { isBaseline: boolean }) => c.isBaseline)).toHaveLength(1)

    const watch = await cli(t.dir, ['run', 'watch', runId, '--db', db, '--json'])
    expect(watch.json).toMatchObject({ type: 'run.finished', runId, status: 'succeeded' })

    const apply = await cli<ApplyResult>(t.dir, ['run', 'apply', runId, '--db', db, '--json'])
    expect(apply.code).toBe(0)
    expect(apply.json.combo).toMatchObject(run.summary?.winner?.combo ?? {})
    expect(translated(apply.json.translation).argv.length).toBeGreaterThan(0)
    const human = await cli(t.dir, ['run', 'apply', runId, '--db', db])
    // Human output is the shell-quoted, multi-line form that `sh` turns back into this argv.
    expect(human.out).toContain(formatCommandLine(translated(apply.json.translation), { env: 'export', multiline: true }))
  })

  it('should run the interleaved design when asked (--design interleaved) and show it with its A/A check', async () => {
    const created = await cli(t.dir, ['run', 'create', 'request.json', '--design', 'interleaved', '--rounds', '4', '--seed', '2', '--db', db, '--json'])
    expect(created.code).toBe(0)
    expect(created.json).toMatchObject({ status: 'succeeded', summary: { experiment: { design: 'interleaved', rounds: 4, seed: 2 } } })
    const show = await cli<ShowOutput>(t.dir, ['run', 'show', created.json.id, '--db', db, '--json'])
    for (const c of show.json.combos) expect(c.repetitions).toHaveLength(4)
    const human = await cli(t.dir, ['run', 'show', created.json.id, '--db', db])
    expect(human.out).toMatch(/design\s+interleaved, 4 rounds, seed 2, sign-flip test/)
    expect(human.out).toMatch(/A\/A check/)
  })

  it('should cancel a queued run (--no-watch); a finished run keeps its status', async () => {
    const queued = await cli(t.dir, ['run', 'create', request, '--db', db, '--no-watch', '--json'])
    expect(queued.json.status).toBe('queued')
    const cancel = await cli(t.dir, ['run', 'cancel', queued.json.id, '--db', db, '--json'])
    expect(cancel.json).toEqual({ id: queued.json.id, status: 'cancelled', cancelled: true })
    expect((await cli<ShowOutput>(t.dir, ['run', 'show', queued.json.id, '--db', db, '--json'])).json.run.status).toBe('cancelled')
    const again = await cli(t.dir, ['run', 'cancel', queued.json.id, '--db', db, '--json'])
    expect(again.json).toEqual({ id: queued.json.id, status: 'cancelled', cancelled: false })
    const finished = await cli(t.dir, ['run', 'cancel', runId, '--db', db, '--json'])
    expect(finished.json).toEqual({ id: runId, status: 'succeeded', cancelled: false })
  })

  it('should build a request from flags over the file', async () => {
    const r = await cli(t.dir, ['run', 'create', request, '--db', db, '--reps', '2', '--restrict', '{"attention_backend":["flashinfer"],"kv_layout":["paged"],"matmul_path":["cublas"],"fusion_strategy":["none"],"cuda_graph":["per-shape"],"activation_dtype":["bf16","fp16"]}', '--no-watch', '--json'])
    expect(r.code).toBe(0)
    expect([r.json.repetitions, r.json.progress.total]).toEqual([2, 2])
  })

  it('should reject bad flags and input with exit 2, naming the flag', async () => {
    const none = await cli(t.dir, ['run', 'create', '--db', db])
    expect([none.code, /REQUEST\.json or --gguf/.test(none.err)]).toEqual([2, true])
    const reps = await cli(t.dir, ['run', 'create', request, '--db', db, '--reps', 'many'])
    expect([reps.code, /--reps/.test(reps.err)]).toEqual([2, true])
    const mode = await cli(t.dir, ['run', 'create', request, '--db', db, '--mode', 'bogus'])
    expect([mode.code, /--mode/.test(mode.err)]).toEqual([2, true])
    const backend = await cli(t.dir, ['run', 'create', request, '--db', db, '--backend', 'nope'])
    expect([backend.code, /backend "nope" is not registered/.test(backend.err)]).toEqual([2, true])
    const restrict = await cli(t.dir, ['run', 'create', request, '--db', db, '--restrict', '{oops'])
    expect([restrict.code, /--restrict is not JSON/.test(restrict.err)]).toEqual([2, true])
    const missing = await cli(t.dir, ['run', 'create', 'missing.json', '--db', db])
    expect([missing.code, /cannot read the request file/.test(missing.err)]).toEqual([2, true])
    const flag = await cli(t.dir, ['run', 'list', '--db', db, '--bogus'])
    expect([flag.code, /--bogus/.test(flag.err)]).toEqual([2, true])
    const noToken = await cli(t.dir, ['run', 'list', '--server', 'http://127.0.0.1:1'])
    expect([noToken.code, /--token/.test(noToken.err)]).toEqual([2, true])
  })

  it('should answer an unknown run id with exit 2 and the id, in text and --json', async () => {
    for (const sub of ['show', 'watch', 'cancel', 'apply']) {
      const r = await cli(t.dir, ['run', sub, 'no-such-run', '--db', db])
      expect([sub, r.code]).toEqual([sub, 2])
      expect(r.err).toMatch(/no-such-run/)
    }
    const j = await cli(t.dir, ['run', 'show', 'no-such-run', '--db', db, '--json'])
    expect(j.json).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } })
    const noId = await cli(t.dir, ['run', 'show', '--db', db])
    expect([noId.code, /RUN_ID/.test(noId.err)]).toEqual([2, true])
  })

  it('should run llama.cpp for real on a GGUF (--gguf, engine and backend llamacpp)', async () => {
    await writeGgufFile(join(t.dir, 'tiny.gguf'), synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 5 }).file)
    const r = await cli(t.dir, ['run', 'create', '--engine', 'llamacpp', '--backend', 'llamacpp', '--gguf', 'tiny.gguf', '--db', db,
      '--restrict', '{"threads":["1"],"flash_attn":["auto","off"]}', '--reps', '2', '--warmups', '0', '--prompt-tokens', '16', '--gen-tokens', '6', '--json'])
    expect(r.code).toBe(0)
    expect(r.json).toMatchObject({ status: 'succeeded', backend: 'node-llama-cpp', progress: { done: 2, total: 2 } })
    expect(r.json.target).toMatchObject({ engine: 'llamacpp', modelPath: join(t.dir, 'tiny.gguf') })
    expect(r.json.summary?.simulated).toBe(false)
    // In process there are no server slots: the run holds them (and continuous batching) at their defaults and says so.
    expect(r.json.summary?.heldAtDefault).toEqual({ parallel: 'auto', cont_batching: 'on' })
    expect((await cli(t.dir, ['run', 'show', r.json.id, '--db', db])).out).toMatch(/held at default\s+parallel=auto, cont_batching=on \(the backend cannot exercise them: not searched\)/)
    const combos = (await cli<ShowOutput>(t.dir, ['run', 'show', r.json.id, '--db', db, '--json'])).json.combos
    expect(combos.map((c) => [c.combo.flash_attn, c.simulated, c.repetitions.length])).toEqual([['auto', false, 2], ['off', false, 2]])
    const apply = await cli<ApplyResult>(t.dir, ['run', 'apply', r.json.id, '--db', db, '--json', '--force'])
    expect(apply.code).toBe(0)
    expect(translated(apply.json.translation).argv.slice(0, 1)).toEqual(['llama-server'])
    expect(translated(apply.json.translation).argv).toContain('--threads')
    const missing = await cli(t.dir, ['run', 'create', '--gguf', 'nope.gguf', '--db', db])
    expect([missing.code, /is not a file/.test(missing.err)]).toEqual([2, true])
  }, 120_000)
})

describe('kerneltune run create/show --slo --objective', () => {
  const db2 = join(t.dir, 'objectives.db')
  beforeAll(() => { t.file('small.json', SMALL_RUN) })

  it('should refuse an unknown objective with the accepted names, as a usage error', async () => {
    const bad = await cli(t.dir, ['run', 'create', 'small.json', '--db', db2, '--slo', 'ttft_p98_ms=500'])
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/--slo: unknown latency objective 'ttft_p98_ms'; accepted: ttft_mean_ms, .*e2e_p99_ms/)
    const goodput = await cli(t.dir, ['run', 'create', 'small.json', '--db', db2, '--objective', 'goodput'])
    expect(goodput.code).toBe(2)
    expect(goodput.err).toMatch(/state them with --slo/)
  })

  it('should store the objectives with the run and show them, and say when the backend measured no requests', async () => {
    const created = await cli(t.dir, ['run', 'create', 'small.json', '--db', db2, '--slo', 'ttft_p99_ms=500,tpot_p99_ms=50', '--json'])
    expect(created.code).toBe(0)
    expect(created.json.target.options).toMatchObject({ slo: { ttft_p99_ms: 500, tpot_p99_ms: 50 }, objective: 'goodput' })
    const show = await cli(t.dir, ['run', 'show', created.json.id, '--db', db2, '--json'])
    expect(show.json).toMatchObject({ objective: 'goodput', slo: [{ name: 'ttft_p99_ms', limitMs: 500 }, { name: 'tpot_p99_ms', limitMs: 50 }], pareto: [] })
    const human = await cli(t.dir, ['run', 'show', created.json.id, '--db', db2])
    expect(human.out).toMatch(/objectives\s+TTFT p99 ≤ 500 ms, TPOT p99 ≤ 50 ms; maximise goodput/)
    expect(human.out).toMatch(/backend analytical measured no requests/)
  })
})
