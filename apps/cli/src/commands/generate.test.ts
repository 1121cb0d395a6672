import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it, expect } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { findDenoBinary } from '@kerneltune/kernel-lab/node'
import { runMain } from '../cli/testing.ts'

describe.skipIf(requireOrSkip(Boolean(findDenoBinary()), 'Deno: no deno binary (it is a devDependency: pnpm install); generate verifies kernels with WebGPU under Deno (Mesa lavapipe on CPU-only machines)'))('kerneltune generate and registry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kt-generate-'))
  const db = ['--db', join(dir, 'k.db')]

  it('should take a template variant from proposed to approved by someone other than its submitter, with the audit trail', async () => {
    const g = await runMain(['generate', '--provider', 'template', '--kernel', 'gemv', '--format', 'q4_0', '--count', '2', '--n', '64', '--k', '256', '--iterations', '2', '--as', 'alice', '--json', ...db], dir)
    expect(g.code).toBe(0)
    const doc = JSON.parse(g.out) as { candidates: { verified: boolean; status: string; registryId: string | null; timings?: { medianMs: number } }[] }
    expect(doc.candidates).toHaveLength(2)
    for (const c of doc.candidates) expect([c.verified, c.status, typeof c.registryId]).toEqual([true, 'proposed', 'string'])
    const id = doc.candidates[0]!.registryId!

    const listed = JSON.parse((await runMain(['registry', 'list', '--status', 'proposed', '--json', ...db], dir)).out) as { items: { id: string; status: string }[] }
    expect(listed.items.map((e) => e.id)).toContain(id)

    const before = JSON.parse((await runMain(['registry', 'select', '--kernel', 'gemv', '--format', 'q4_0', '--json', ...db], dir)).out) as { selected: unknown; excluded: { status: string }[] }
    expect(before.selected).toBeNull()
    expect(before.excluded.map((e) => e.status)).toEqual(['proposed', 'proposed'])

    const self = await runMain(['registry', 'approve', id, '--reason', 'mine', '--as', 'alice', '--json', ...db], dir)
    expect(self.code).toBe(1)
    expect(JSON.parse(self.out).error.code).toBe('FORBIDDEN')
    expect((await runMain(['registry', 'approve', id, ...db], dir)).code).toBe(2)
    const ok = await runMain(['registry', 'approve', id, '--reason', 'verified on lavapipe, reviewed', '--as', 'bob', '--json', ...db], dir)
    expect(JSON.parse(ok.out).status).toBe('approved')

    const shown = JSON.parse((await runMain(['registry', 'show', id, '--json', ...db], dir)).out) as { entry: { metadata: { provenance: { template: string; parent: string }; verification: { correct: boolean } } }; audit: { action: string; actor: string; reason: string | null }[] }
    expect(shown.entry.metadata.provenance.template).toMatch(/^gemv\./)
    expect(shown.entry.metadata.verification.correct).toBe(true)
    expect(shown.audit.map((a) => [a.action, a.actor])).toEqual([['submit', 'alice'], ['approve', 'bob']])

    const sel = await runMain(['registry', 'select', '--kernel', 'gemv', '--format', 'q4_0', '--run', '--json', ...db], dir)
    expect(sel.code).toBe(0)
    const used = JSON.parse(sel.out) as { selected: { id: string }; result: { registryId: string; verified: boolean; notes: string[] } }
    expect([used.selected.id, used.result.registryId, used.result.verified, used.result.notes]).toEqual([id, id, true, []])

    const dep = await runMain(['registry', 'deprecate', id, '--reason', 'superseded', '--as', 'bob', '--json', ...db], dir)
    expect(JSON.parse(dep.out).status).toBe('deprecated')
    const after = await runMain(['registry', 'select', '--kernel', 'gemv', '--format', 'q4_0', '--json', ...db], dir)
    expect(after.code).toBe(3)
    expect(JSON.parse(after.out).excluded.find((e: { id: string }) => e.id === id)).toMatchObject({ status: 'deprecated', why: 'deprecated: removed from selection' })
  }, 240_000)

  it('should reject a human module that computes the wrong thing and propose nothing (exit 3)', async () => {
    const { writeFileSync } = await import('node:fs')
    writeFileSync(join(dir, 'bad.js'), 'export default async (ctx) => ({ output: new Array(ctx.input.m * ctx.input.n).fill(0), samplesMs: [1] })')
    const r = await runMain(['generate', '--provider', 'human', '--file', 'bad.js', '--n', '64', '--k', '256', '--json', ...db], dir)
    expect(r.code).toBe(3)
    expect(JSON.parse(r.out).candidates[0]).toMatchObject({ verified: false, status: 'rejected', registryId: null })
  }, 120_000)
})
