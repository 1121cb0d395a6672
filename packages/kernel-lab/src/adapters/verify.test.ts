import { describe, it, expect } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { kernelModule } from '../candidate.ts'
import { parentModule, templateProvider } from '../providers.ts'
import { findDenoBinary } from './deno-sandbox.node.ts'
import { verifyInSandbox } from './verify.node.ts'

const problem = { format: 'q4_0' as const, m: 1, n: 64, k: 256 }
const timing = { warmup: 0, iterations: 2 }

describe.skipIf(requireOrSkip(Boolean(findDenoBinary()), 'Deno: no deno binary (it is a devDependency: pnpm install); the kernel sandbox runs WebGPU under Deno (Mesa lavapipe on CPU-only machines)'))('verifyInSandbox', () => {
  it('should verify every GEMV template variant against the CPU reference', async () => {
    const candidates = await templateProvider().generate({ kind: 'gemv', problem, count: 10 })
    expect(candidates.length).toBeGreaterThanOrEqual(4)
    for (const c of candidates) {
      const r = await verifyInSandbox(c.source, problem, { timing })
      expect([c.name, r.sandbox.outcome, r.verified, r.verification.error]).toEqual([c.name, 'ok', true, undefined])
      expect(r.timings!.samplesMs).toHaveLength(2)
    }
  }, 240_000)

  it('should verify every GEMM template variant, with m not a multiple of the row tile', async () => {
    const gemm = { format: 'q8_0' as const, m: 6, n: 64, k: 128 }
    const candidates = await templateProvider().generate({ kind: 'gemm', problem: gemm, count: 10 })
    expect(candidates.map((c) => c.provenance.template)).toEqual(['gemm.thread-per-output', 'gemm.weight-reuse-4', 'gemm.weight-reuse-8'])
    for (const c of candidates) {
      const r = await verifyInSandbox(c.source, gemm, { timing })
      expect([c.name, r.verified, r.verification.error]).toEqual([c.name, true, undefined])
    }
  }, 240_000)

  it('should verify the tuned kernel\'s default configuration the same way', async () => {
    const r = await verifyInSandbox(parentModule('gemv', problem).source, problem, { timing })
    expect(r.verified).toBe(true)
  }, 60_000)

  it('should reject a kernel that computes the wrong thing', async () => {
    const wrong = kernelModule({
      code: `@group(0) @binding(4) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { if (g.x < arrayLength(&y)) { y[g.x] = 1.0; } }`,
      entryPoint: 'main', groups: [1, 1, 1],
    })
    const r = await verifyInSandbox(wrong, problem, { timing })
    expect(r.verified).toBe(false)
  }, 60_000)
})
