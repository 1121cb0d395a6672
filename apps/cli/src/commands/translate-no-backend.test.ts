/**
 * `kerneltune translate` measures nothing, so it must build no measurement backend: every backend
 * factory is wrapped in a spy, and translating must leave all of them uncalled (issue 24).
 */
import { describe, expect, it, vi } from 'vitest'
import type { Io } from '../cli/command.ts'
import { main } from '../main.ts'

const built = vi.hoisted(() => [] as string[])

vi.mock('@kerneltune/backends', async (original) => {
  const m = await original<typeof import('@kerneltune/backends')>()
  return { ...m, analyticalBackend: (...a: Parameters<typeof m.analyticalBackend>) => (built.push('analytical'), m.analyticalBackend(...a)) }
})
vi.mock('@kerneltune/backends/node', async (original) => {
  const m = await original<typeof import('@kerneltune/backends/node')>()
  return {
    ...m,
    gpuKernelsBackend: (...a: Parameters<typeof m.gpuKernelsBackend>) => (built.push('gpu-kernels'), m.gpuKernelsBackend(...a)),
    serverRunBackend: (...a: Parameters<typeof m.serverRunBackend>) => (built.push('server'), m.serverRunBackend(...a)),
  }
})

vi.mock('@kerneltune/engines-llamacpp/node', async (original) => {
  const m = await original<typeof import('@kerneltune/engines-llamacpp/node')>()
  return { ...m, llamacppRunBackend: (...a: Parameters<typeof m.llamacppRunBackend>) => (built.push('node-llama-cpp'), m.llamacppRunBackend(...a)) }
})

vi.mock('@kerneltune/engines-onnx/node', async (original) => {
  const m = await original<typeof import('@kerneltune/engines-onnx/node')>()
  return { ...m, onnxruntimeRunBackend: (...a: Parameters<typeof m.onnxruntimeRunBackend>) => (built.push('onnxruntime'), m.onnxruntimeRunBackend(...a)) }
})

const io = (out: string[]): Io => ({ stdout: (t) => void out.push(t), stderr: (t) => void out.push(t), interactive: false, env: {}, cwd: '/' })

describe('kerneltune translate and the measurement backends', () => {
  it('should translate without building any backend', async () => {
    const out: string[] = []
    for (const engine of ['vllm', 'triton', 'llamacpp', 'onnx-cpu']) {
      expect(await main(['translate', '--engine', engine, '--combo', '{}', '--json'], io(out))).toBe(0)
    }
    expect(out.join('')).toContain('"ok": true')
    expect(built).toEqual([])
  })

  it('should see a backend being built through the spies (the check above can fail)', async () => {
    built.length = 0
    const { defaultRegistry } = await import('@kerneltune/compose/node')
    defaultRegistry()
    expect(built).toEqual(['analytical', 'gpu-kernels', 'node-llama-cpp', 'server', 'onnxruntime'])
  })
})
