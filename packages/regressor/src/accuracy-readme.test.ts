import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
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
})
