import { describe, expect, it } from 'vitest'
import type { Combo, MeasurementBackend } from '@kerneltune/core'
import { llamacppEngine, withoutDefaults } from '@kerneltune/engines-llamacpp'
import { runInterleavedSweep } from '@kerneltune/experiment'
import { launchNote, renderInterleaved as render, roundTiming as timing, type SweepText } from './report.ts'

const text: SweepText = { table: (rows, header) => [...(header ? [header] : []), ...rows].map((r) => r.join('  ')).join('\n') + '\n', fmt: (n, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) }
const renderInterleaved = (r: Parameters<typeof render>[1]) => render(text, r)
const roundTiming = (r: Parameters<typeof timing>[1], parallel?: number) => timing(text, r, parallel)

/**
 * A simulated backend with known truth (threads=1 is 10% faster) and ±2% seeded noise, so the
 * sweep's statistics are real but deterministic; only the report's wording is under test here.
 */
function simulated(fail?: (c: Combo, call: number) => boolean): MeasurementBackend {
  let s = 42
  let call = 0
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  return {
    name: 'simulated', kind: 'measurement-backend', apiVersion: 1, simulated: true,
    async measure(req) {
      if (fail?.(req.combo, call++)) throw new Error('llama-server exited (code 1)')
      const v = (req.combo.threads === '1' ? 110 : 100) * (1 + (rnd() - 0.5) * 0.04)
      return { backend: 'simulated', simulated: true, device: 'test', repetitions: [{ latencyMs: 1000 / v, decodeTps: v, throughputTps: v, ttftMs: 10, prefillTps: 1000 }] }
    },
  }
}
const candidates: { combo: Combo }[] = [{ combo: { threads: '1' } }, { combo: { flash_attn: 'off' } }]

// Every printed p-value says how it was computed: exact over 2^n sign patterns up to 14 rounds,
// resampled from 10,000 past them (issue 23 item 11).
describe('renderInterleaved', () => {
  it('should label the p-values exact with the number of patterns when every arm has at most 14 rounds', async () => {
    const r = await runInterleavedSweep({ engine: llamacppEngine(), withoutDefaults, backend: simulated(), candidates, rounds: 8, seed: 1, warmups: 0, aaResamples: 100 })
    const out = renderInterleaved(r)
    expect(out).toMatch(/sign-flip p-value: exact up to 14 rounds, resampled from 10,000 patterns past them/)
    expect(out).toMatch(/^p-values: sign-flip exact \(2\^8 = 256 patterns\)$/m)
    expect(out).toMatch(/A\/A check \(the defaults against themselves\): [-+0-9.]+%, p=[0-9.e-]+ \(sign-flip exact \(2\^8 = 256 patterns\)\)/)
    // --json prints the result as it is: the fields travel with every comparison.
    const json = JSON.parse(JSON.stringify(r)) as typeof r
    expect(json.combos[0]!.paired.decodeTps).toMatchObject({ pMethod: 'exact', patterns: 256 })
  })

  it('should report the A/A false-winner rate only at rounds where the sign-flip test can reach p < 0.05 (issue 34 item 12)', async () => {
    const few = await runInterleavedSweep({ engine: llamacppEngine(), withoutDefaults, backend: simulated(), candidates, rounds: 3, seed: 1, warmups: 0, aaResamples: 100 })
    // At 3 rounds the rule can call nothing better, so its rate is 0 by construction: not printed as a finding.
    expect(few.aa.falseWinnerRate).toBe(0)
    const out = renderInterleaved(few)
    expect(out).not.toMatch(/false-winner rate of the rule/)
    expect(out).toMatch(/A\/A check \(the defaults against themselves\): [-+0-9.]+%, .*; with 3 rounds the sign-flip test cannot reach p < 0\.05 \(it needs 7\), so there is no false-winner rate to report/)
    const enough = await runInterleavedSweep({ engine: llamacppEngine(), withoutDefaults, backend: simulated(), candidates, rounds: 8, seed: 1, warmups: 0, aaResamples: 100 })
    expect(renderInterleaved(enough)).toMatch(/false-winner rate of the rule at this noise \(sign-flip resampling\): [0-9.]+%/)
  })

  it('should label them resampled, with the count and the floor, past 14 rounds', async () => {
    const r = await runInterleavedSweep({ engine: llamacppEngine(), withoutDefaults, backend: simulated(), candidates, rounds: 15, seed: 1, warmups: 0, aaResamples: 100 })
    const out = renderInterleaved(r)
    expect(out).toMatch(/^p-values: sign-flip resampled \(10,000 patterns, p ≥ 1\/10,001\)$/m)
    expect(out).toMatch(/winner: .*p=[0-9.e-]+, resampled \(10,000 patterns, p ≥ 1\/10,001\)\)/)
    expect(r.combos[0]!.paired.decodeTps).toMatchObject({ pMethod: 'resampled', resamples: 10_000, pFloor: 1 / 10_001 })
  })

  it('should label each p-value in its row when the arms were compared over different numbers of rounds', async () => {
    // flash_attn=off dies in its visit of round 9 or later, leaving it fewer rounds than the others.
    const r = await runInterleavedSweep({ engine: llamacppEngine(), withoutDefaults, backend: simulated((c, call) => c.flash_attn === 'off' && call >= 32), candidates, rounds: 15, seed: 1, warmups: 0, aaResamples: 0 })
    const rounds = r.combos.map((c) => c.paired.decodeTps?.n)
    expect(new Set(rounds).size).toBe(2)
    const out = renderInterleaved(r)
    expect(out).toMatch(/p-values: .*; .* \(each row says which\)/)
    expect(out).toMatch(/ resampled 10,000 /)
    expect(out).toMatch(/ exact 2\^\d+ /)
  })
})

describe('the launches of a server sweep (issue 35)', () => {
  it('should count the launches by their reason, from the result of the design', () => {
    const l = (reason: string) => ({ reason, ok: true })
    expect(launchNote({ rounds: 3, launches: { baseline: [l('pre-launch'), l('relaunch')], a: [l('pre-launch'), l('after eviction'), l('after eviction')] } }, 2, 1))
      .toBe('server launches: 5 for 2 arms over 3 rounds (1 after a server died, 2 relaunched after being stopped to stay within 1 kept servers)')
  })

  it('should say where the time went: the pre-launch, round 1 and the median later round', () => {
    expect(roundTiming({ roundSeconds: [3, 2, 4, 2.5], prepareSeconds: 6 }, 1)).toBe('time: servers pre-launched 1 at a time in 6.0 s; round 1 3.0 s, later rounds median 2.5 s (round 1 / median 1.20, with the pre-launch 3.60)')
    expect(roundTiming({ roundSeconds: [9, 3] })).toBe('time: no pre-launch; round 1 9.0 s, later rounds median 3.0 s (round 1 / median 3.00)')
    expect(roundTiming({ roundSeconds: [] })).toBeUndefined()
  })
})
