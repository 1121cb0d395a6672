import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { DEVELOPMENT_CHIPS } from '../scripts/accuracy.ts'
import { blockOf } from '../scripts/accuracy-report.ts'
import { pretrainedInfo } from './index.ts'

const read = (rel: string) => readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8')

describe('accuracy tables (issue 26: one script, both READMEs)', () => {
  const report = read('../assets/accuracy.md')

  it.each([['regressor README', '../README.md'], ['top README', '../../../README.md']])('should carry in the %s exactly the tables the training script wrote', (_, file) => {
    expect(blockOf(read(file))).toBe(report)
  })

  it('should give every target of the issue a verdict, from the same run as the shipped asset', () => {
    const info = pretrainedInfo() as { scriptVersion: string; targets: { name: string; figure: string; met: boolean }[] }
    expect(report).toContain(`v${info.scriptVersion} `)
    expect(info.targets.map((t) => t.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^decode MAPE over chips/), expect.stringMatching(/^prefill MAPE over chips/), expect.stringMatching(/current-build discrete GPU/), expect.stringMatching(/coverage 85–95%, decode/), expect.stringMatching(/coverage 85–95%, prefill/), expect.stringMatching(/median width/)]))
    for (const t of info.targets) expect(report).toContain(`| ${t.name} | ${t.figure} | ${t.met ? 'met' : '**not met**'} |`)
  })

  it('should report the thirteen chips whose folds served the development loop apart, and the folds that are not out of sample (issues 34, 38)', () => {
    const info = pretrainedInfo() as { sampleCount: number; byChip: { chip: string; decode: { rows: number }; prefill: { rows: number } }[] }
    const dev = info.byChip.filter((c) => DEVELOPMENT_CHIPS.includes(c.chip))
    // Every listed chip is a fold of the evaluation, and together they hold the 1,310 rows the --only loop scored
    // (v3.3.0's 1,220 and, since v3.4.0, the Arc Pro B70's 80, the V100's 6 and the P100's 4).
    expect(dev.map((c) => c.chip).sort()).toEqual([...DEVELOPMENT_CHIPS].sort())
    const rows = dev.reduce((n, c) => n + c.decode.rows + c.prefill.rows, 0)
    expect(rows).toBe(1310)
    expect(report).toContain(`${dev.map((c) => c.chip).join(', ')}; ${rows} of ${info.sampleCount} rows`)
    expect(report).toMatch(/^\| development \(13\) \| decode \|/m)
    expect(report).toMatch(/^\| held out from development \(15\) \| prefill \|/m)
    expect(report).toMatch(/^\| nvidia-gh100 \|.*\| development; not out of sample for the kernel-family effect's design \|$/m)
    expect(report).toMatch(/^\| arc-pro-b70 \|.*\| development; not out of sample for the kernel-figure corrections \|$/m)
  })
})
