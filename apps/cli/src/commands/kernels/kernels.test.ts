import { existsSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import type { Io } from '../../cli/command.ts'
import { runCli } from '../../cli/run.ts'
import { findDeno } from '@kerneltune/gpu-kernels/webgpu-job'
import { kernelsCommand } from '../kernels.ts'

function memoryIo() {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env: {}, cwd: '/' }
  return { io, out: () => out.join(''), err: () => err.join('') }
}
const root = { name: 'kerneltune', summary: 'root', subcommands: [kernelsCommand] }

// The Deno path needs deno and a Vulkan driver (Mesa lavapipe in CI, or a GPU's).
const icdDirs = ['/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d']
const hasVulkan = icdDirs.some((d) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.json')))
const canRunGpu = Boolean(findDeno()) && hasVulkan

describe('kerneltune kernels list', () => {
  it('should list every kernel family with its parameter space as JSON', async () => {
    const m = memoryIo()
    expect(await runCli(root, ['kernels', 'list', '--json'], m.io)).toBe(0)
    const { kernels } = JSON.parse(m.out())
    expect(kernels).toHaveLength(10)
    const q4 = kernels.find((k: { name: string }) => k.name === 'gpu-kernels:gemv-q4_0')
    expect(q4.bytesPerBlock).toBe(18)
    expect(kernels.find((k: { name: string }) => k.name === 'gpu-kernels:gemm-q3_0').bytesPerBlock).toBe(14)
    expect(q4.parameters.map((p: { name: string }) => p.name)).toContain('rowsPerWorkgroup')
    expect(q4.validConfigs).toBeGreaterThan(0)
  })
  it('should filter by kind and format and reject a bad size', async () => {
    const m = memoryIo()
    expect(await runCli(root, ['kernels', 'list', '--kind', 'gemm', '--format', 'f16', '--gemm-size', '64x256x1024'], m.io)).toBe(0)
    expect(m.out()).toContain('gpu-kernels:gemm-f16')
    expect(m.out()).not.toContain('gemv-q4_0')
    expect(m.out()).toContain('64x256x1024')
    const bad = memoryIo()
    expect(await runCli(root, ['kernels', 'list', '--gemv-size', '1x2x33'], bad.io)).toBe(2)
    expect(bad.err()).toMatch(/multiple of 32/)
  })
})

describe.skipIf(requireOrSkip(canRunGpu, `Deno and a Vulkan driver for kernels verify/bench: ${findDeno() ? 'no Vulkan ICD in /usr/share/vulkan/icd.d (apt-get install -y mesa-vulkan-drivers libvulkan1)' : 'deno not found (pnpm install)'}`))('kerneltune kernels verify and bench through Deno', () => {
  it('should verify sampled configurations of one family', async () => {
    const m = memoryIo()
    const code = await runCli(root, ['kernels', 'verify', '--kind', 'gemv', '--format', 'q8_0', '--max-configs', '3', '--gemv-size', '2x64x256', '--json'], m.io)
    const doc = JSON.parse(m.out())
    expect(code).toBe(0)
    expect(doc.ok).toBe(true)
    expect(doc.entries).toEqual([expect.objectContaining({ kind: 'gemv', format: 'q8_0', tried: 3, correct: 3 })])
    expect(doc.device.name.length).toBeGreaterThan(0)
    expect(m.err()).toMatch(/verify: 1\/1/)
  }, 60000)
  it('should bench tuned against default with the copy ceiling', async () => {
    const m = memoryIo()
    const code = await runCli(root, ['kernels', 'bench', '--kind', 'gemv', '--format', 'q4_0', '--max-configs', '3', '--gemv-size', '1x64x512', '--iterations', '2', '--warmup', '1', '--copy-mib', '1', '--confirm-rounds', '3', '--json'], m.io)
    expect(code).toBe(0)
    const doc = JSON.parse(m.out())
    expect(doc.copy.gbps).toBeGreaterThan(0)
    const e = doc.entries[0]
    expect(e.tuned.correct).toBe(true)
    expect(e.tuned.latencyMs.median).toBeLessThanOrEqual(e.default.latencyMs.median)
    expect(e.tunedFractionOfCopy).toBeCloseTo(e.tuned.gbps / doc.copy.gbps, 6)
    // The selection figure is kept; the reported one comes from fresh rounds (or is 1 when the default won).
    expect(e.selectionSpeedup).toBeCloseTo(e.default.latencyMs.median / e.tuned.latencyMs.median, 9)
    if (e.confirmation) {
      expect(e.confirmation).toMatchObject({ rounds: 3, level: 0.95 })
      expect(e.confirmation.baselineMs).toHaveLength(3)
      expect(e.speedup).toBe(e.confirmation.speedup)
      expect(e.keep).toBe(e.confirmation.verdict === 'faster' ? 'tuned' : 'default')
    } else expect(e).toMatchObject({ speedup: 1, keep: 'default' })
    const human = memoryIo()
    expect(await runCli(root, ['kernels', 'bench', '--kind', 'gemv', '--format', 'q4_0', '--max-configs', '3', '--gemv-size', '1x64x512', '--iterations', '2', '--warmup', '1', '--copy-mib', '1', '--confirm-rounds', '3'], human.io)).toBe(0)
    expect(human.out()).toMatch(/selection \(biased\)/)
    expect(human.out()).toMatch(/confirmed \[95% CI\]/)
  }, 60000)
})
