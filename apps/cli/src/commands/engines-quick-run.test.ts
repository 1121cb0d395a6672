/**
 * Issue 11 §1: TGI and ONNX Runtime had 0 legal combinations of 288 in quick mode and `run create`
 * failed with "cannot express the baseline", because the catalog swept dimensions those engines do
 * not control. Now every engine previews legal combinations on an H100 and completes a quick
 * (Tier 1) run with the analytical backend.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Io } from '../cli/command.ts'
import { main } from '../main.ts'
import { cli, HARDWARE, MODEL, tempDir } from './run.test-helpers.ts'

const ENGINES = ['vllm', 'tgi', 'onnx', 'trtllm', 'trtllm-serve', 'triton', 'llamacpp'] as const
const t = tempDir('kt-engines-quick-')
afterAll(() => rmSync(t.dir, { recursive: true, force: true }))

async function kerneltune(argv: string[]) {
  const out: string[] = []
  const io: Io = { stdout: (s) => void out.push(s), stderr: () => {}, interactive: false, env: {}, cwd: t.dir }
  const code = await main(argv, io)
  return { code, json: JSON.parse(out.join('')) }
}

describe('every engine on an H100 in quick mode', () => {
  for (const engine of ENGINES) {
    it(`should preview legal combinations for ${engine}`, async () => {
      const r = await kerneltune(['catalog', 'preview', '--hardware', 'h100-sxm', '--engine', engine, '--mode', 'quick', '--json'])
      expect(r.code).toBe(0)
      expect(r.json.counts.quick.legal).toBeGreaterThan(1)
      expect(r.json.legal.length).toBe(r.json.counts.quick.legal)
    })

    it(`should complete a quick run of ${engine} with the analytical backend`, async () => {
      const request = t.file(`${engine}.json`, { model: MODEL, hardware: HARDWARE, engine, backend: 'analytical', mode: 'quick', repetitions: 2, warmups: 0, maxCombos: 2000, workload: { batch: 16, contextLength: 8192 } })
      const r = await cli(t.dir, ['run', 'create', request, '--db', join(t.dir, 'kt.db'), '--json'])
      expect(r.err).toBe('')
      expect(r.code).toBe(0)
      expect(r.json).toMatchObject({ status: 'succeeded', backend: 'analytical' })
      expect(r.json.progress.total).toBeGreaterThan(1)
      expect(r.json.progress.done).toBe(r.json.progress.total)
    })
  }
})

describe('kerneltune catalog preview --version', () => {
  it('should check refusals for the release named: XFORMERS is legal on vLLM 0.11.2 and refused on 0.32.0', async () => {
    const xformers = async (version: string) => {
      const r = await kerneltune(['catalog', 'preview', '--hardware', 'h100-sxm', '--engine', 'vllm', '--version', version, '--mode', 'exhaustive', '--json'])
      expect(r.code).toBe(0)
      return r.json.counts.exhaustive.refusedBy['attention_backend=xformers'] ?? 0
    }
    expect(await xformers('0.11.2')).toBe(0)
    expect(await xformers('0.32.0')).toBeGreaterThan(0)
  })

  it('should refuse an unknown release once, with exit 2', async () => {
    const out: string[] = []
    const io: Io = { stdout: (s) => void out.push(s), stderr: (s) => void out.push(s), interactive: false, env: {}, cwd: t.dir }
    expect(await main(['catalog', 'preview', '--hardware', 'h100-sxm', '--engine', 'vllm', '--version', '0.20.0'], io)).toBe(2)
    expect(out.join('')).toMatch(/supported versions/)
  })
})
