/**
 * Tier 3 end to end on the embedded SQLite store and real WebGPU (Deno; Mesa lavapipe on CPU-only
 * machines): a template variant is generated and verified in the sandbox, proposed by alice,
 * approved by bob (audit trail), selected in a gpu-kernels run (measured in the sandbox at the
 * run's shapes, the result naming its registry id), deprecated, not selected by the next run, and
 * the first run's result then says it measured a kernel that is deprecated now.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { findDenoBinary } from '@kerneltune/kernel-lab/node'
import { runMain } from '../cli/testing.ts'

interface Use { id: string; name: string; kernelFamily: string; selection: 'selected' | 'excluded'; used: boolean; why: string }
interface Shown { run: { id: string; status: string; summary: { registryKernels?: (Omit<Use, 'used'> & { usedBy: number[] })[] }; registryNotes?: string[] }; combos: { status: string; kernels?: Use[] }[] }

// One layer's fused projections (qkv 640x512 and gate_up 2048x512, 8 activation rows after scaling)
// with f16 weights: 2 combinations (fp16 and bf16 both run f16), so the family is gemv/f16.
const REQUEST = {
  model: { name: 'tiny', paramsB: 1.1, hiddenDim: 2048, numLayers: 22, numHeads: 32, numKvHeads: 4, intermediateDim: 5632, quant: 'F16' },
  hardware: { name: 'NVIDIA H100 SXM', vendor: 'nvidia', memBwGbs: 3350, fp16Tflops: 989, computeCapability: '9.0' },
  engine: 'vllm', backend: 'gpu-kernels', repetitions: 3, warmups: 1, earlyStop: false, workload: { batch: 8, contextLength: 1024 },
  restrict: { activation_dtype: ['fp16', 'bf16'], attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['aggressive'], cuda_graph: ['per-shape'] },
}

describe.skipIf(requireOrSkip(Boolean(findDenoBinary()), 'Deno: no deno binary (it is a devDependency: pnpm install); registry kernels run with WebGPU under Deno (Mesa lavapipe on CPU-only machines)'))('registry kernels in runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kt-registry-run-'))
  const db = ['--db', join(dir, 'k.db')]
  writeFileSync(join(dir, 'request.json'), JSON.stringify(REQUEST))
  const json = async (args: string[]) => {
    const r = await runMain([...args, '--json', ...db], dir)
    return { code: r.code, doc: JSON.parse(r.out) }
  }
  const runAndShow = async (): Promise<Shown> => {
    const created = await json(['run', 'create', 'request.json', '--registry-kernels'])
    expect(created.code).toBe(0)
    return (await json(['run', 'show', created.doc.id])).doc as Shown
  }

  it('should go proposed → approved → selected in a run → deprecated → not selected, and the old run says so', async () => {
    const g = await json(['generate', '--provider', 'template', '--kernel', 'gemv', '--format', 'f16', '--count', '2', '--n', '64', '--k', '256', '--iterations', '2', '--as', 'alice'])
    expect(g.code).toBe(0)
    const [first, second] = (g.doc.candidates as { registryId: string; status: string }[]).map((c) => (expect(c.status).toBe('proposed'), c.registryId))
    const approved = await json(['registry', 'approve', first!, '--reason', 'reviewed; verified on lavapipe', '--as', 'bob'])
    expect(approved.doc.status).toBe('approved')
    const audit = (await json(['registry', 'show', first!])).doc.audit as { action: string; actor: string; reason: string | null }[]
    expect(audit.map((a) => [a.action, a.actor])).toEqual([['submit', 'alice'], ['approve', 'bob']])

    const one = await runAndShow()
    expect(one.run.status).toBe('succeeded')
    // Each combination measured the approved kernel at the run's shapes; the proposed one was excluded.
    for (const c of one.combos) {
      expect(c.status).toBe('measured')
      expect(c.kernels?.find((k) => k.id === first)).toMatchObject({ selection: 'selected', kernelFamily: 'gemv/f16' })
      expect(c.kernels?.find((k) => k.id === second)).toMatchObject({ selection: 'excluded', used: false, why: 'proposed: not approved yet' })
    }
    expect(one.run.summary.registryKernels?.find((k) => k.id === first)?.selection).toBe('selected')
    expect(one.combos[0]!.kernels?.find((k) => k.id === first)?.why).toMatch(/^approved; .*qkv 8x640x512: [0-9.]+ ms vs tuned [0-9.]+ ms; gate_up 8x2048x512: /)
    expect(one.run.registryNotes).toBeUndefined()

    const dep = await json(['registry', 'deprecate', first!, '--reason', 'superseded', '--as', 'bob'])
    expect(dep.doc.status).toBe('deprecated')

    const two = await runAndShow()
    expect(two.run.status).toBe('succeeded')
    expect(two.combos.flatMap((c) => c.kernels ?? []).filter((k) => k.selection === 'selected')).toEqual([])
    expect(two.run.summary.registryKernels?.find((k) => k.id === first)).toMatchObject({ selection: 'excluded', usedBy: [], why: 'deprecated: removed from selection' })

    const old = (await json(['run', 'show', one.run.id])).doc as Shown
    // "used" when it beat the tuned kernel on some GEMV of the run, "measured (but not used)" otherwise.
    const usedAnywhere = one.combos.some((c) => c.kernels?.some((k) => k.id === first && k.used))
    const how = usedAnywhere ? 'used by this result' : 'measured (but not used) by this result'
    expect(old.run.registryNotes).toEqual([expect.stringContaining(`(${first}) ${how} has been deprecated since`)])
    const text = await runMain(['run', 'show', one.run.id, ...db], dir)
    expect(text.out).toContain('deprecated since')
  }, 400_000)

  it('should let autotune measure the approved kernel of a cell\'s family next to its best config, and never a deprecated one', async () => {
    const g = await json(['generate', '--provider', 'template', '--kernel', 'gemv', '--format', 'q4_0', '--count', '2', '--n', '64', '--k', '256', '--iterations', '2', '--as', 'alice'])
    const [first, second] = (g.doc.candidates as { registryId: string }[]).map((c) => c.registryId)
    expect((await json(['registry', 'approve', first!, '--reason', 'reviewed', '--as', 'bob'])).doc.status).toBe('approved')
    type Cell = { best: { latency_ms: number; kernel: { kind: string; format: string } }; registry?: { family: string; selected: { id: string; verified: boolean; latency_ms: number; faster_than_best: boolean } | null; excluded: { id: string; why: string }[] } }
    const autotune = async () => {
      const r = await json(['autotune', '--batch-sizes', '1', '--hidden', '256', '--bits', '4', '--variants', 'guide', '--warmup', '1', '--iterations', '3', '--output', 'at.json', '--registry-kernels'])
      expect(r.code).toBe(0)
      return r.doc.cells as Cell[]
    }
    const [cell] = await autotune()
    expect(cell!.best.kernel).toMatchObject({ kind: 'gemv', format: 'q4_0' })
    expect(cell!.registry).toMatchObject({ family: 'gemv/q4_0', selected: { id: first, verified: true }, excluded: [{ id: second, why: 'proposed: not approved yet' }] })
    expect(cell!.registry!.selected!.latency_ms).toBeGreaterThan(0)
    expect(cell!.registry!.selected!.faster_than_best).toBe(cell!.registry!.selected!.latency_ms < cell!.best.latency_ms)

    await json(['registry', 'deprecate', first!, '--reason', 'superseded', '--as', 'bob'])
    const [after] = await autotune()
    expect(after!.registry!.selected).toBeNull()
    expect(after!.registry!.excluded.find((e) => e.id === first)?.why).toBe('deprecated: removed from selection')
  }, 300_000)
})
