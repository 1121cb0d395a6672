import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Io } from '../../cli/command.ts'
import { main } from '../../main.ts'
import { findDeno } from '@kerneltune/gpu-kernels/webgpu-job'

function memoryIo(cwd: string) {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env: {}, cwd }
  return { io, out: () => out.join(''), err: () => err.join('') }
}

// A file in upstream export_config's shape, plus one guide-style "(2, 4)" key.
const UPSTREAM = {
  device: 'm4', device_name: 'M4 Max', device_family: 'M4', adaptation_enabled: true,
  lookup_table: {
    '4': { '4096': {
      '2,4': { tile_size_m: 128, tile_size_n: 128, num_simdgroups: 16, kernel_variant: 'prefill', batch_strategy: 'hybrid', bit_width: 2, kernel_name: 'moe_trellis_mixed_swiglu_prefill', simdgroups: 16, use_fp32_acc: false },
      '(3, 4)': { tile_size_m: 96, tile_size_n: 96, simdgroups: 8, kernel_variant: 'base', bit_width: 3 },
    } },
  },
  adaptation_timings: {}, optimized_configs: {},
}

describe('kerneltune autotune select', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kt-autotune-'))
  writeFileSync(join(dir, 'upstream.json'), JSON.stringify(UPSTREAM))

  it('should find the nearest batch (6→4) and report the distance, as JSON', async () => {
    const m = memoryIo(dir)
    expect(await main(['autotune', 'select', '--config', 'upstream.json', '--batch', '6', '--hidden', '4096', '--bits', '2,4', '--json'], m.io)).toBe(0)
    const j = JSON.parse(m.out())
    expect(j.selection).toMatchObject({ method: 'nearest_batch', key: { batch: 4, hidden: 4096, bits: '2,4' }, distance: { batch: 2, hidden: 0 }, config_id: '2bit_128x128_16sg_prefill_hybrid' })
  })

  it('should read "(3, 4)" keys and print a readable answer', async () => {
    const m = memoryIo(dir)
    expect(await main(['autotune', 'select', '--config', 'upstream.json', '--batch', '4', '--hidden', '5120', '--bits', '4,3'], m.io)).toBe(0)
    expect(m.out()).toMatch(/method\s+nearest_hidden/)
    expect(m.out()).toContain('3bit_96x96_8sg_base_hybrid')
  })

  it('should fall back to the default, or exit 3 with --no-fallback', async () => {
    const d = memoryIo(dir)
    expect(await main(['autotune', 'select', '--config', 'upstream.json', '--batch', '1', '--hidden', '4096', '--bits', '8', '--json'], d.io)).toBe(0)
    expect(JSON.parse(d.out()).selection).toMatchObject({ method: 'default', key: null, config: { bit_width: 8, kernel_variant: 'decode', tile_size_m: 64, num_simdgroups: 4 } })
    const n = memoryIo(dir)
    expect(await main(['autotune', 'select', '--config', 'upstream.json', '--batch', '1', '--hidden', '4096', '--bits', '8', '--no-fallback', '--json'], n.io)).toBe(3)
    expect(JSON.parse(n.out()).selection).toBeNull()
  })

  it('should reject an invalid file with the path of each bad entry (exit 2)', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ lookup_table: { '4': { '4096': { '(2, 5)': {}, '4': { simdgroups: 12 } } } } }))
    const m = memoryIo(dir)
    expect(await main(['autotune', 'select', '--config', 'bad.json', '--batch', '4', '--hidden', '4096'], m.io)).toBe(2)
    expect(m.err()).toContain('lookup_table.4.4096.(2, 5)')
    expect(m.err()).toContain('lookup_table.4.4096.4: Invalid num_simdgroups: 12')
    const missing = memoryIo(dir)
    expect(await main(['autotune', 'select', '--config', 'nope.json', '--batch', '4', '--hidden', '4096'], missing.io)).toBe(2)
  })
})

// The real path: tunes WGSL kernels under Deno (lavapipe here). Skipped where Deno is absent.
describe.skipIf(requireOrSkip(Boolean(findDeno()), 'Deno for autotune --quick on real kernels: deno not found (pnpm install)'))('kerneltune autotune --quick (real kernels)', () => {
  it('should tune, write a config, and have select read it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-autotune-'))
    const m = memoryIo(dir)
    expect(await main(['autotune', '--quick', '--output', 'quick.json', '--json'], m.io)).toBe(0)
    const j = JSON.parse(m.out())
    expect(j.ok).toBe(true)
    expect(j.cells).toHaveLength(8)
    expect(j.statistics.successful_benchmarks).toBeGreaterThan(0)
    expect(j.statistics.successful_benchmarks + j.statistics.failed_benchmarks).toBe(j.statistics.total_benchmarks)
    for (const c of j.cells) {
      expect(c.best.kernel.max_abs_error).toBeGreaterThanOrEqual(0)
      // --quick confirms each winner against the default in 10 fresh rounds, or the default won outright.
      expect(['tuned', 'default']).toContain(c.kept)
      if (c.confirmation) expect(c.confirmation).toMatchObject({ rounds: 10, level: 0.95 })
      else expect(c.best.config_id).toBe(c.default.config_id)
    }
    const file = JSON.parse(readFileSync(join(dir, 'quick.json'), 'utf8'))
    expect(Object.keys(file)).toEqual(['device', 'device_name', 'device_family', 'adaptation_enabled', 'lookup_table', 'adaptation_timings', 'optimized_configs'])
    const s = memoryIo(dir)
    expect(await main(['autotune', 'select', '--config', 'quick.json', '--batch', '1', '--hidden', '256', '--bits', '4', '--json'], s.io)).toBe(0)
    expect(JSON.parse(s.out()).selection).toMatchObject({ method: 'exact', config: { kernel_variant: 'decode', bit_width: 4 } })
  }, 180_000)
})
