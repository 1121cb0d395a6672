/**
 * The kernels kit's pure parts: what it plans in which order, how it scales on a CPU adapter, when
 * the budget skips a task, the Q4_0 GEMV profile's arithmetic, and the markdown's columns.
 */
import { describe, expect, it } from 'vitest'
import { WEIGHT_FORMATS, weightBytes } from '@kerneltune/gpu-kernels'
import { mappedGpuLibraries, parseArgs } from './kit.ts'
import { LLAMA3_8B, evenSample, fits, planTasks, settingsFor } from './plan.ts'
import { Q4_0_BLOCK_OPS, profileQ4Gemv } from './profile.ts'
import { TABLE_COLUMNS, confirmedCell, shortConfig, tableRow } from './report.ts'
import { KernelRowSchema, type KernelRow } from './schema.ts'

describe('planTasks', () => {
  it('should start with Q4_0 decode and cover every format for GEMV and GEMM at the 8B shapes', () => {
    const tasks = planTasks(settingsFor('full', false))
    expect(tasks[0]).toEqual({ kind: 'gemv', format: 'q4_0', shape: 'ffn_up', m: 1, n: 14336, k: 4096 })
    for (const kind of ['gemv', 'gemm'] as const) {
      expect(new Set(tasks.filter((t) => t.kind === kind).map((t) => t.format))).toEqual(new Set(WEIGHT_FORMATS))
    }
    expect(tasks.find((t) => t.kind === 'gemm')).toMatchObject({ m: LLAMA3_8B.prefillTokens, n: 4096, k: 4096 })
    expect(tasks.map((t) => `${t.shape}:${t.n}x${t.k}`)).toEqual(expect.arrayContaining(['ffn_down:4096x14336', 'attn_kv:1024x4096']))
    // Every format's decode comes before any prefill of another shape than the first.
    const firstLateGemm = tasks.findIndex((t) => t.kind === 'gemm' && t.shape === 'ffn_up')
    expect(tasks.slice(0, firstLateGemm).filter((t) => t.kind === 'gemv' && t.shape === 'ffn_up').length).toBe(5)
  })

  it('should divide every dimension by 8 on a CPU adapter, keeping k a multiple of 32, and keep one shape per kind in quick mode', () => {
    const s = settingsFor('quick', true)
    expect(s.scale).toBe(8)
    const tasks = planTasks(s)
    expect(tasks.length).toBe(10)
    expect(tasks[0]).toMatchObject({ m: 1, n: 1792, k: 512 })
    expect(tasks.find((t) => t.kind === 'gemm')).toMatchObject({ m: 64, n: 512, k: 512 })
    for (const t of planTasks(settingsFor('full', true))) expect(t.k % 32).toBe(0)
    expect(settingsFor('full', false).scale).toBe(1)
  })
})

describe('fits', () => {
  it('should run the first task of a kind while time is left and scale the last one\'s time by the work', () => {
    expect(fits(10, 1e9)).toBe(true)
    expect(fits(0, 1)).toBe(false)
    expect(fits(30, 2e9, { seconds: 10, work: 1e9 })).toBe(true)
    expect(fits(20, 2e9, { seconds: 10, work: 1e9 })).toBe(false)
    // Smaller work never shrinks the estimate below the last task's time.
    expect(fits(12, 1e8, { seconds: 10, work: 1e9 })).toBe(false)
  })
})

describe('evenSample', () => {
  it('should take an even sample and put the default first when it is not in it', () => {
    const all = Array.from({ length: 10 }, (_, i) => i)
    expect(evenSample(all, 4, (a, b) => a === b)).toEqual([0, 2, 5, 7])
    expect(evenSample(all, 4, (a, b) => a === b, 9)).toEqual([9, 0, 2, 5])
    expect(evenSample(all, 4, (a, b) => a === b, 5)).toEqual([0, 2, 5, 7])
    expect(evenSample([1, 2], 4, (a, b) => a === b, 3)).toEqual([3, 1, 2])
  })
})

describe('profileQ4Gemv', () => {
  it('should derive the workgroup proxy, strides, bytes per weight and ops per byte from the config and the probes', () => {
    const problem = { format: 'q4_0' as const, m: 1, n: 14336, k: 4096 }
    const config = { workgroupSize: 128, rowsPerWorkgroup: 4, vecWidth: 4, unroll: 2 }
    const p = profileQ4Gemv({ problem, config, gbps: 2100 }, 3000, 60000)
    expect(p.fractionOfCopy).toBeCloseTo(0.7, 10)
    expect(p.workgroups).toBe(14336 / 4)
    expect(p.threads).toBe((14336 / 4) * 128)
    expect(p.threadsPerRow).toBe(32)
    expect(p.blocksPerThread).toBe(128 / 32)
    expect(p.neighbourStrideBytes).toBe(32)
    expect(p.bytesPerWeight).toBe(weightBytes('q4_0', 1, 32) / 32)
    const total = Q4_0_BLOCK_OPS.dequant + Q4_0_BLOCK_OPS.dot + Q4_0_BLOCK_OPS.address
    expect(p.opsPerByte.total).toBeCloseTo(total / 18, 10)
    expect(p.deviceOpsPerCopyByte).toBeCloseTo(60000 / 2 / 3000, 10)
    expect(p.line).toMatch(/^profile gemv q4_0 1x14336x4096: 2100\.0 GB\/s = 70\.0% of copy 3000\.0 GB\/s/)
    expect(p.line).toContain(p.opsPerByte.total > 10 ? 'arithmetic-bound before memory-bound' : 'memory-bound at these counts')
    expect(profileQ4Gemv({ problem, config, gbps: 1 }, 3000, null).deviceOpsPerCopyByte).toBeNull()
  })
})

describe('report', () => {
  const fig = (gbps: number, tflops: number, fraction: number, c: Record<string, number | boolean>) => ({ config: c, configKey: JSON.stringify(c), medianMs: 1, gbps, tflops, fraction, weightCopies: 2 })
  const row: KernelRow = KernelRowSchema.parse({
    kind: 'gemm', format: 'q8_0', shape: 'attn_qo', role: 'attention Q and output', problem: { m: 512, n: 4096, k: 4096 }, fullSize: null,
    fractionOf: 'fma', verifiedRows: 16, tried: 16, correct: 16,
    tuned: fig(40, 12.5, 0.25, { tileM: 64, tileN: 16, threadM: 4, threadN: 1, useSharedMemory: false }),
    default: fig(20, 6.25, 0.125, { tileM: 16, tileN: 16, threadM: 1, threadN: 1, useSharedMemory: false }),
    selectionSpeedup: 2.1, confirmation: { speedup: 1.9, low: 1.8, high: 2.0, level: 0.95, rounds: 20, verdict: 'faster', defaultMedianMs: 2, tunedMedianMs: 1.05 },
    keep: 'tuned', failures: [], seconds: 3,
  })

  it('should give one cell per column, TFLOP/s and the FMA fraction for a GEMM, and the confirmed interval', () => {
    const cells = tableRow(row).split(' | ')
    expect(cells.length).toBe(TABLE_COLUMNS.length)
    expect(tableRow(row)).toContain('| 12.50 TFLOP/s | 25.0% | 6.25 TFLOP/s | 12.5% | 2.10× | 1.90× [1.80, 2.00], 20 | tuned |')
    expect(shortConfig('gemm', row.tuned!.config)).toBe('64×16 tile, 4×1/thread')
    expect(shortConfig('gemv', { workgroupSize: 64, rowsPerWorkgroup: 2, vecWidth: 4, unroll: 1 })).toBe('wg64 rows2 vec4 unroll1')
    expect(confirmedCell({ ...row, confirmation: null, default: row.tuned })).toBe('default won selection')
  })

  it('should name every column issue 40 item 2 asks for', () => {
    expect(TABLE_COLUMNS.join(' ')).toMatch(/tuned configuration.*tuned.*ceiling.*default.*confirmed speed-up/)
  })
})

describe('parseArgs and mappedGpuLibraries', () => {
  it('should need --out and a positive budget', () => {
    expect(parseArgs([])).toMatch(/--out/)
    expect(parseArgs(['--out', 'x', '--budget-s', '0'])).toMatch(/--budget-s/)
    expect(parseArgs(['--out', 'x', '--quick'])).toEqual({ out: 'x', budgetS: 270, mode: 'quick' })
  })

  it('should find the loader and the driver libraries among the mapped files', () => {
    const maps = [
      '7f00-7f01 r-xp 00000000 08:01 12 /tmp/w/gl/usr/lib/x86_64-linux-gnu/libvulkan.so.1.3.239',
      '7f02-7f03 r-xp 00000000 08:01 13 /usr/lib/x86_64-linux-gnu/libvulkan_lvp.so',
      '7f04-7f05 r-xp 00000000 08:01 14 /usr/lib/x86_64-linux-gnu/libc.so.6',
      '7f06-7f07 rw-p 00000000 00:00 0 ',
    ].join('\n')
    expect(mappedGpuLibraries(maps)).toEqual({ loader: '/tmp/w/gl/usr/lib/x86_64-linux-gnu/libvulkan.so.1.3.239', drivers: ['/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so'], backend: 'vulkan' })
    expect(mappedGpuLibraries('')).toEqual({ loader: null, drivers: [], backend: 'unknown' })
    // Deno's fallback when Vulkan has no driver: Mesa's GL through EGL, under the same adapter name.
    const gl = '7f00-7f01 r-xp 00000000 08:01 12 /usr/lib/x86_64-linux-gnu/libEGL.so.1.1.0\n7f02-7f03 r-xp 00000000 08:01 13 /usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0.0.0'
    expect(mappedGpuLibraries(gl)).toEqual({ loader: null, drivers: ['/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0.0.0'], backend: 'gl' })
  })
})
