import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compose, openStoreAt } from '@kerneltune/compose/node'
import type { Run, RunCombo } from '@kerneltune/core'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { createApp } from '@kerneltune/server'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import type { Store } from '@kerneltune/store'
import { runVerdict, type InterleavedSummary, type RunSummary, type RunVerdict } from '@kerneltune/tuner'
import { main } from '../main.ts'
import { memoryIo } from '../cli/testing.ts'

// Issue 36 item 3: one executor. A stored sweep run is measured by `kerneltune sweep` and, stored
// again, by the server's queue (the app's queue, as `kerneltune serve` and the embedded CLI run it),
// both with the composed registry's onnxruntime backend on a tiny synthesized ONNX llama.
const dir = mkdtempSync(join(tmpdir(), 'kt-sweep-executor-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const SMALL = ['--params', '2M', '--vocab-size', '320', '--quick', '--space', JSON.stringify({ ort_intra_op_threads: ['auto', '1'], ort_matmulnbits_accuracy: ['model', '4'] }), '--warmup', '0', '--prompt-tokens', '8', '--gen-tokens', '4']

type Summary = RunSummary & { experiment: InterleavedSummary; verdict: RunVerdict }
const summaryOf = (run: Run) => run.summary as unknown as Summary
const shape = (cs: readonly RunCombo[]) => cs.map((c) => ({ index: c.index, comboHash: c.comboHash, combo: c.combo, isBaseline: c.isBaseline, status: c.status, repetitions: c.repetitions.length }))
/** What the one rule says of a stored summary, less the command line the executor adds. */
const decided = (s: Summary) => {
  const { recommendedArgv: _argv, ...v } = runVerdict(s, { band: 0.05 })
  return v
}

/** The sweep's stored run (target with its options and design settings, combinations, gate, backend) stored again for a server, pending, and measured by its queue. */
async function throughQueue(runA: Run, combosA: readonly RunCombo[], snapshot: Parameters<Store['runs']['create']>[0]['snapshot'], db: string): Promise<{ run: Run; combos: RunCombo[] }> {
  const c = await compose({ databaseUrl: join(dir, db), env: {} })
  const app = createApp({ store: c.store, registry: c.registry, catalog: c.catalog, env: {}, autostart: false })
  try {
    const queued = await c.store.runs.create({
      tenant: runA.tenant, mode: runA.mode, target: runA.target, snapshot, qualityGate: runA.qualityGate, backend: runA.backend, repetitions: runA.repetitions,
      combos: combosA.map((x) => ({ combo: x.combo, comboHash: x.comboHash, isBaseline: x.isBaseline })),
    })
    app.queue.start('run', queued.id)
    await app.queue.idle()
    return { run: await c.store.runs.require(null, queued.id), combos: await c.store.runs.combos(queued.id) }
  } finally {
    await app.shutdown()
    await c.close()
  }
}

/** Runs `kerneltune sweep` (exit 0 or 3) and reads back the run it stored, its combinations and snapshot. */
async function sweepStored(argv: string[], db: string, env: Record<string, string>) {
  const m = memoryIo(dir, env)
  const code = await main(argv, m.io)
  expect([0, 3], m.err()).toContain(code)
  const printed = JSON.parse(m.out())
  const a = await openStoreAt(db)
  try {
    const runA = await a.runs.require(null, printed.runId)
    return { code, printed, runA, combosA: await a.runs.combos(runA.id), snapshot: (await a.runs.snapshot(runA.snapshotHash))! }
  } finally {
    await a.close()
  }
}

describe('one executor: kerneltune sweep and the server queue', () => {
  it('should give a stored sweep run the same combinations, repetitions, rounds and verdict rule whichever measures it', async () => {
    const dbA = join(dir, 'sweep.db')
    const { printed, runA, combosA, snapshot } = await sweepStored(['sweep', '--engine', 'onnx', '--backend', 'onnxruntime', ...SMALL, '--rounds', '3', '--json', '--db', dbA], dbA, { KERNELTUNE_CACHE_DIR: join(dir, 'cache') })

    const { run: runB, combos: combosB } = await throughQueue(runA, combosA, snapshot, 'server.db')
    expect([runA.status, runB.status]).toEqual(['succeeded', 'succeeded'])

    // The same combinations, each measured for the same repetitions (3 rounds each, the baseline's too).
    expect(shape(combosB)).toEqual(shape(combosA))
    expect(combosA.map((x) => x.repetitions.length)).toEqual([3, 3, 3, 3])
    // By the same backend (the composed onnxruntime one: same device line) and the same design, seed and round order.
    const [sA, sB] = [summaryOf(runA), summaryOf(runB)]
    expect(sB.backend).toBe('onnxruntime')
    expect(sB.devices).toEqual(sA.devices)
    const design = (s: Summary) => ({ design: s.experiment.design, metric: s.experiment.metric, rounds: s.experiment.rounds, seed: s.experiment.seed, test: s.experiment.test, order: s.experiment.order })
    expect(design(sB)).toEqual(design(sA))

    // One verdict: what each path stored is what the one rule says of its own measurements, the sweep
    // printed exactly the stored one, and both decided by the same rule at the same power.
    expect(printed.verdict).toEqual(sA.verdict)
    expect(sA.verdict).toMatchObject(decided(sA))
    expect(sB.verdict).toMatchObject(decided(sB))
    const rule = (v: RunVerdict) => ({ decidedBy: v.decidedBy, power: v.power, band: v.aa?.band, quantity: v.best?.quantity })
    expect(rule(sB.verdict)).toEqual(rule(sA.verdict))
    // Its command line is the verdict's: none when withheld, else the combination it keeps or names.
    for (const s of [sA, sB]) {
      expect(s.experiment.recommendedArgv).toEqual(s.verdict.recommendedArgv ?? [])
      if (s.verdict.kind === 'withheld') expect(s.verdict.recommendedArgv).toBeNull()
    }
  }, 300_000)
})

// The same with --backend server: the composed `server` backend launches real llama-servers for
// both, told by the stored run (options.serving) how many requests each repetition sends and which
// servers stay up across the rounds, so neither path builds its own pool.
const LLAMA = process.env.KERNELTUNE_LLAMA_SERVER
describe.skipIf(requireOrSkip(Boolean(LLAMA), 'llama-server: KERNELTUNE_LLAMA_SERVER is unset (bash tooling/scripts/build-llama-server.sh --print-path-only prints the built one)'))('one executor: kerneltune sweep --backend server and the server queue', () => {
  it('should give the stored server sweep run the same combinations, repetitions, request counts and verdict whichever measures it', async () => {
    const gguf = join(dir, 'tiny.gguf')
    await writeGgufFile(gguf, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 5 }).file)
    const dbA = join(dir, 'server-sweep.db')
    const space = JSON.stringify({ threads: ['1'], parallel: ['auto', '1'], flash_attn: ['auto'] })
    const argv = ['sweep', '--backend', 'server', '--gguf', gguf, '--quick', '--space', space, '--rounds', '3', '--warmup', '0', '--requests', '2', '--concurrency', '1', '--prompt-tokens', '8', '--gen-tokens', '4', '--json', '--db', dbA]
    const { code, printed, runA, combosA, snapshot } = await sweepStored(argv, dbA, {})
    expect(runA.backend).toBe('server')
    expect(runA.target.options?.serving).toMatchObject({ requests: 2 })
    const { run: runB, combos: combosB } = await throughQueue(runA, combosA, snapshot, 'server-queue.db')
    expect([runA.status, runB.status, runB.error]).toEqual(['succeeded', 'succeeded', null])

    // The same combinations, 3 rounds each, every repetition a load run of exactly 2 requests.
    expect(shape(combosB)).toEqual(shape(combosA))
    expect(combosA.map((x) => x.repetitions.length)).toEqual([3, 3, 3])
    const requests = (cs: readonly RunCombo[]) => cs.map((c) => c.repetitions.map((r) => r.serving?.requests.length))
    expect(requests(combosA)).toEqual([[2, 2, 2], [2, 2, 2], [2, 2, 2]])
    expect(requests(combosB)).toEqual(requests(combosA))
    const [sA, sB] = [summaryOf(runA), summaryOf(runB)]
    expect(sB.backend).toBe('server')
    const design = (s: Summary) => ({ design: s.experiment.design, metric: s.experiment.metric, rounds: s.experiment.rounds, seed: s.experiment.seed, test: s.experiment.test, order: s.experiment.order })
    expect(design(sB)).toEqual(design(sA))
    // Both pre-launched every arm's server once and relaunched none (the kept servers the run stored).
    const reasons = (s: Summary) => Object.fromEntries(Object.entries(s.experiment.launches ?? {}).map(([arm, ls]) => [arm, ls.map((l) => l.reason)]))
    expect(reasons(sB)).toEqual(reasons(sA))

    // One verdict: stored and printed alike, by the same rule at the same power. 3 rounds cannot
    // reach p < 0.05, so neither names a winner and the defaults stay (exit 3); whether as
    // keep-defaults or withheld follows what each A/A arm read of this machine's noise.
    expect(printed.verdict).toEqual(sA.verdict)
    expect(sA.verdict).toMatchObject(decided(sA))
    expect(sB.verdict).toMatchObject(decided(sB))
    const rule = (v: RunVerdict) => ({ winner: v.kind === 'winner', index: v.index, decidedBy: v.decidedBy, power: v.power, band: v.aa?.band, quantity: v.best?.quantity })
    expect(rule(sB.verdict)).toEqual(rule(sA.verdict))
    expect(rule(sA.verdict)).toMatchObject({ winner: false, index: null, decidedBy: 'design', power: { rounds: 3, canDecide: false } })
    expect(code).toBe(3)
  }, 600_000)
})
