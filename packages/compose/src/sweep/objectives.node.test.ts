import { describe, expect, it } from 'vitest'
import type { Combo, HardwareSpec, MeasurementBackend, ServedRequest } from '@kerneltune/core'
import { parseObjective, parseSlo } from '@kerneltune/serving'
import type { InterleavedSweepResult } from '@kerneltune/experiment'
import { openStoreAt } from '../compose.node.ts'
import { readStoredObjectives, storedRecords, sweepObjectivesOutput, type ObjectivesText } from './objectives.node.ts'
import { planServingSweep } from './plan.ts'
import { decisionJson, decisionText } from './report.ts'
import { sweepAsRun } from './run.node.ts'

const hardware: HardwareSpec = { name: 'cpu', kind: 'cpu', vendor: 'cpu', memBwGbs: 20, fp16Tflops: 0.5 } as HardwareSpec
const o = { slo: parseSlo('ttft_p99_ms=500,tpot_p99_ms=50'), objective: parseObjective('goodput') }
/** Plain text: cells joined by two spaces (the CLI aligns them), numbers to fixed digits. */
const text: ObjectivesText = {
  table: (rows, header) => [...(header ? [header] : []), ...rows].map((r) => r.join('  ')).join('\n') + '\n',
  fmt: (n, digits = 1) => n.toFixed(digits),
  objectivesHeader: (x) => `objectives: ${x.slo.map((s) => s.name).join(',')}; ${x.objective.name}\n`,
  verdictOf: (c) => (c.feasible ? 'meets' : 'misses'),
  fmtValue: (x) => (x === null ? '-' : x.toFixed(2)),
  capacityLine: (c) => `capacity ${c.value}`,
  capacityJson: (c) => c,
}

/**
 * A serving backend with known truth, deterministic: the defaults serve 4 requests/s at TTFT 50 ms;
 * threads=1 serves 6 at 80 ms (it meets the objectives and beats the defaults every round);
 * flash_attn=off serves 9 at 900 ms (it misses the TTFT objective). `aaFactor` scales the A/A arm
 * (the defaults under cont_batching=on): far from 1, the defaults differ from themselves.
 */
function servingBackend(aaFactor = 1): MeasurementBackend {
  let call = 0
  return {
    name: 'server', kind: 'measurement-backend', apiVersion: 1, simulated: false,
    async measure(req) {
      const c = req.combo
      const aa = c.cont_batching === 'on' && Object.keys(c).length === 1
      const [n, ttft, tps] = c.flash_attn === 'off' ? [9, 900, 120] : c.threads === '1' ? [6, 80, 110] : [4, 50, 100 * (aa ? aaFactor : 1)]
      const wobble = 1 + ((call++ % 3) - 1) * 0.001
      const requests: ServedRequest[] = Array.from({ length: n }, (_, i) => ({ ok: true, startMs: i, ttftMs: ttft, itlMs: [10, 10, 10, 10], e2eMs: ttft + 40, outputTokens: 5 }))
      return { backend: 'server', simulated: false, device: 'test', repetitions: [{ latencyMs: 1000 / tps, decodeTps: tps * wobble, throughputTps: tps * wobble, ttftMs: ttft, prefillTps: 1000, serving: { durationS: 1, requests } }] }
    },
  }
}

/** The sweep's own path for --backend server --slo …: a stored interleaved run, executed by the tuner, read back for printing. */
async function sweep(aaFactor: number) {
  const store = await openStoreAt(':memory:')
  try {
    const plan = planServingSweep('quick', hardware, 2, { threads: ['auto', '1'], parallel: ['auto'], flash_attn: ['auto', 'off'] })
    const { runId, result, decided } = await sweepAsRun({
      store, modelPath: '/nowhere/m.gguf', hardware, plan, design: 'interleaved', backendName: 'server', backend: servingBackend(aaFactor),
      workload: { batch: 2, promptTokens: 16, generatedTokens: 4 }, repetitions: 8, warmups: 0,
      settings: { model: '/nowhere/m.gguf', metric: 'decodeTps', warmups: 0, rounds: 8, seed: 1, aaCombo: { cont_batching: 'on' } },
      is: (x): x is InterleavedSweepResult => 'aa' in x, objectives: o,
      session: { spec: { argv: ['--backend=server', '--quick=true'], cores: 2 } },
      model: { name: 'm', paramsB: 0.001, numLayers: 2, quant: 'Q8_0' },
    })
    const stored = (await readStoredObjectives(store, runId, o))!
    const run = await store.runs.require(null, runId)
    const out = sweepObjectivesOutput(text, result, o, stored, undefined)
    return { run, result, decided, stored, json: { ...decisionJson(result, decided), ...out.json }, text: out.text + decisionText(decided) }
  } finally {
    await store.close()
  }
}

const indexOf = (combos: readonly { index: number; combo: Combo }[], combo: Combo) => combos.find((c) => JSON.stringify(c.combo) === JSON.stringify(combo))!.index

describe('sweep objectives: the stored run decides, the sweep prints it', () => {
  it('should store and print the same winner when the objectives name one: the feasible threads=1 over the faster infeasible flash_attn=off', async () => {
    const s = await sweep(1)
    const verdict = (s.run.summary as { verdict: { kind: string; index: number; decidedBy: string } }).verdict
    const fast = indexOf(s.stored.combos, s.result.combos.find((c) => c.combo.threads === '1' && c.combo.flash_attn === 'auto')!.combo)
    expect(verdict).toMatchObject({ kind: 'winner', index: fast, decidedBy: 'objectives' })
    // Printed: the stored verdict, its winner and its command line, nothing else naming another.
    expect(s.json.verdict).toEqual(verdict)
    expect(s.json.decision).toMatchObject({ by: 'objectives', winner: fast })
    expect(s.json.winner).toMatchObject({ candidate: fast, feasible: true, combo: { threads: '1', flash_attn: 'auto' } })
    expect(s.json.recommendedArgv!.join(' ')).toMatch(/--threads 1/)
    expect(s.json.winner!.argv).toEqual(s.json.recommendedArgv)
    expect(s.text).toMatch(new RegExp(`^verdict: Winner: #${fast}: `, 'm'))
    expect(s.text).toMatch(/^recommended: .*--threads 1/m)
    // The infeasible candidate with more throughput is judged, never chosen; goodput pools the 8 rounds.
    const off = s.json.candidates.find((c) => c.combo.flash_attn === 'off' && c.combo.threads !== '1')!
    expect(off).toMatchObject({ feasible: false, goodput: { requestsPerSecond: 0, met: 0 } })
    expect(s.json.candidates.find((c) => c.index === fast)).toMatchObject({ feasible: true, goodput: { requestsPerSecond: 6, met: 48 } })
    // --records: every stored request, by combination and round.
    expect(storedRecords(s.stored)).toHaveLength(8 * (4 + 6 + 9 + 9))
    expect(storedRecords(s.stored)[0]).toMatchObject({ candidate: 0, round: 1, ok: true, ttftMs: 50 })
  })

  it('should withhold the verdict, name no winner and recommend nothing when the A/A arm reads +400%: the machine was too noisy to decide', async () => {
    const s = await sweep(5)
    const verdict = (s.run.summary as { verdict: { kind: string; headline: string; recommendedArgv: unknown } }).verdict
    expect(verdict).toMatchObject({ kind: 'withheld', recommendedArgv: null })
    expect(verdict.headline).toMatch(/^No verdict, the defaults stay: the A\/A arm \(the defaults against themselves\) .*the machine was too noisy to decide\.$/)
    expect(s.json).toMatchObject({ verdict, winner: null, recommendedArgv: null, decision: { by: 'objectives', winner: null } })
    // The objectives alone still found threads=1: said as evidence, not as a decision.
    expect(s.text).toMatch(/^the objectives alone: .*meets them|^the objectives alone: .*beats the defaults/m)
    expect(s.text).toMatch(/^verdict: No verdict, the defaults stay/m)
    expect(s.text).toMatch(/^recommended: nothing: the verdict is withheld/m)
    expect(s.text).not.toMatch(/^verdict: Winner/m)
  })
})
