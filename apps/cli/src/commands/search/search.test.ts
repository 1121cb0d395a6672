import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Io } from '../../cli/command.ts'
import { runCli } from '../../cli/run.ts'
import { defineCommand } from '../../cli/command.ts'
import { searchCommand } from '../search.ts'

const root = defineCommand({ name: 'kerneltune', summary: 'root', subcommands: [searchCommand] })

async function run(argv: string[], cwd = '/') {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env: {}, cwd }
  const code = await runCli(root, argv, io)
  return { code, out: out.join(''), err: err.join('') }
}

const dir = mkdtempSync(join(tmpdir(), 'kt-search-'))
const rows = ['bx,by,mode,status,time_ms']
for (const bx of [16, 32, 64, 128]) for (const by of [1, 2, 4]) for (const mode of ['a', 'b']) {
  const fail = bx === 128 && by === 4
  rows.push(`${bx},${by},${mode},${fail ? 'RuntimeFailedConfig' : 'ok'},${fail ? '' : (Math.abs(Math.log2(bx) - 5) + by / 2 + (mode === 'a' ? 0 : 0.25) + 1).toFixed(3)}`)
}
writeFileSync(join(dir, 'space.csv'), rows.join('\n') + '\n')

describe('kerneltune search', () => {
  for (const strategy of ['bo', 'tpe', 'random']) {
    it(`should print best and one trace entry per evaluation in --json (${strategy})`, async () => {
      const r = await run(['search', '--replay', 'space.csv', '--strategy', strategy, '--budget', '12', '--seed', '4', '--json'], dir)
      expect(r.code).toBe(0)
      const j = JSON.parse(r.out) as { best: Record<string, unknown>; trace: { evaluation: number; value: number | null; best: number | null; params: Record<string, unknown> }[] }
      expect(Object.keys(j)).toEqual(['best', 'trace'])
      expect(j.trace.map((e) => e.evaluation)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
      expect(Object.keys(j.trace[0]!)).toEqual(['evaluation', 'value', 'best', 'params'])
      expect(Object.keys(j.trace[0]!.params)).toEqual(['bx', 'by', 'mode'])
      expect(j.best.value).toBe(Math.min(...j.trace.map((e) => e.value ?? Infinity)))
      expect(j.trace.at(-1)!.best).toBe(j.best.value)
    })
  }

  it('should give the same search for the same seed, and cap the budget at the file size', async () => {
    const a = await run(['search', '--replay', 'space.csv', '--budget', '99', '--seed', '1', '--json'], dir)
    const b = await run(['search', '--replay', 'space.csv', '--budget', '99', '--seed', '1', '--json'], dir)
    expect(a.out).toBe(b.out)
    expect((JSON.parse(a.out) as { trace: unknown[] }).trace).toHaveLength(24)
  })

  it('should print a human summary', async () => {
    const r = await run(['search', '--replay', 'space.csv', '--budget', '24'], dir)
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/best\s+1.5 time_ms at evaluation \d+/)
    expect(r.out).toMatch(/space best\s+1.5 time_ms \(found 0.00% above it\)/)
  })

  it('should exit 2 without --replay (live search needs Tier 2), and on a missing file or column', async () => {
    const live = await run(['search', '--strategy', 'bo'])
    expect(live.code).toBe(2)
    expect(live.err).toMatch(/kerneltune tune start/)
    expect((await run(['search', '--replay', 'nope.csv'], dir)).code).toBe(2)
    const col = await run(['search', '--replay', 'space.csv', '--objective', 'gflops'], dir)
    expect(col.code).toBe(2)
    expect(col.err).toMatch(/objective column "gflops"/)
  })
})
