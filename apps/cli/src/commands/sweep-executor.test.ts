import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compose, openStoreAt } from '@kerneltune/compose/node'
import type { Run, RunCombo } from '@kerneltune/core'
import { createApp } from '@kerneltune/server'
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

describe('one executor: kerneltune sweep and the server queue', () => {
  it('should give a stored sweep run the same combinations, repetitions, rounds and verdict rule whichever measures it', async () => {
    const dbA = join(dir, 'sweep.db')
    const m = memoryIo(dir, { KERNELTUNE_CACHE_DIR: join(dir, 'cache') })
    const code = await main(['sweep', '--engine', 'onnx', '--backend', 'onnxruntime', ...SMALL, '--rounds', '3', '--json', '--db', dbA], m.io)
    expect([0, 3], m.err()).toContain(code)
    const printed = JSON.parse(m.out())

    const a = await openStoreAt(dbA)
    const runA = await a.runs.require(null, printed.runId)
    const combosA = await a.runs.combos(runA.id)
    const snapshot = (await a.runs.snapshot(runA.snapshotHash))!
    await a.close()

    // The same run (target with its options and design settings, combinations, gate, backend) stored for a server, pending.
    const c = await compose({ databaseUrl: join(dir, 'server.db'), env: {} })
    const app = createApp({ store: c.store, registry: c.registry, catalog: c.catalog, env: {}, autostart: false })
    let runB: Run
    let combosB: RunCombo[]
    try {
      const queued = await c.store.runs.create({
        tenant: runA.tenant, mode: runA.mode, target: runA.target, snapshot, qualityGate: runA.qualityGate, backend: runA.backend, repetitions: runA.repetitions,
        combos: combosA.map((x) => ({ combo: x.combo, comboHash: x.comboHash, isBaseline: x.isBaseline })),
      })
      app.queue.start('run', queued.id)
      await app.queue.idle()
      runB = await c.store.runs.require(null, queued.id)
      combosB = await c.store.runs.combos(queued.id)
    } finally {
      await app.shutdown()
      await c.close()
    }
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
