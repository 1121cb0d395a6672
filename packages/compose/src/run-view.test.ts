import { describe, expect, it } from 'vitest'
import { runRows } from './run-view.ts'

describe('runRows', () => {
  const run = {
    id: 'r1', status: 'succeeded', backend: 'analytical', repetitions: 3, progress: { total: 4 },
    target: { model: { name: 'tiny', paramsB: 1, quant: 'F16' }, hardware: { name: 'H100' }, engine: 'vllm', engineVersion: '0.11.0' },
  }
  it('should print the stored verdict once, and a winner it does not name as not applied', () => {
    const rows = runRows({
      ...run,
      summary: {
        simulated: true, devices: ['roofline'],
        verdict: { headline: 'Keep the defaults: too few rounds.', index: null, reasons: ['3 rounds'], figures: [{ label: 'A/A', text: '+1%' }] },
        winner: { index: 2, combo: { threads: '1' }, notToldApart: {} }, baseline: { index: 0 },
      },
    }, () => '')
    expect(rows).toContainEqual(['target', 'tiny F16 on H100, engine vllm 0.11.0'])
    expect(rows.filter(([k]) => k === 'verdict')).toEqual([['verdict', 'Keep the defaults: too few rounds.']])
    expect(rows).toContainEqual(['winner', 'none: the defaults stay'])
    expect(rows).toContainEqual(['not applied', '#2 {"threads":"1"} (kerneltune run apply --force applies it anyway)'])
  })
  it('should give a capacity search to the caller\'s words and name a proxy beside the numbers', () => {
    const rows = runRows({ ...run, summary: { capacity: { value: 3 }, proxy: { on: 'fake GEMVs', of: 'vllm on H100', engine: true, device: true } } }, (c) => `${c.value} req/s`)
    expect(rows).toContainEqual(['capacity', '3 req/s'])
    expect(rows).toContainEqual(['numbers', 'PROXY: fake GEMVs, standing in for vllm on H100 (not measured on the target engine or hardware)'])
  })
})
