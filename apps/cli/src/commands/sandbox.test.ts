import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it, expect } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { findDenoBinary } from '@kerneltune/kernel-lab/node'
import { runMain } from '../cli/testing.ts'

describe.skipIf(requireOrSkip(Boolean(findDenoBinary()), 'Deno: no deno binary (it is a devDependency: pnpm install)'))('kerneltune sandbox run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kt-sandbox-cli-'))
  writeFileSync(join(dir, 'good.js'), 'export default (ctx) => ({ sum: ctx.input.a + ctx.input.b })')
  writeFileSync(join(dir, 'in.json'), '{"a":2,"b":3}')
  writeFileSync(join(dir, 'env.js'), 'export default () => Deno.env.get("HOME")')

  it('should print the result of a module that behaves, exit 0', async () => {
    const r = await runMain(['sandbox', 'run', 'good.js', '--input', 'in.json', '--json'], dir)
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ outcome: 'ok', result: { sum: 5 } })
  }, 60_000)

  it('should say what was denied and exit 3', async () => {
    const r = await runMain(['sandbox', 'run', 'env.js'], dir)
    expect(r.code).toBe(3)
    expect(r.out).toMatch(/outcome\s+denied/)
    expect(r.out).toMatch(/denied\s+env access/)
  }, 60_000)

  it('should exit 2 for a missing file', async () => {
    const r = await runMain(['sandbox', 'run', 'nope.js', '--json'], dir)
    expect(r.code).toBe(2)
  })
})
