import { describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Bandit } from '@kerneltune/bandit'
import { runMain } from '../cli/testing.ts'

const run = (args: string[], cwd = '/') => runMain(args, cwd)

describe('kerneltune bandit simulate', () => {
  it('should report sublinear regret for Thompson sampling and the same result for the same seed', async () => {
    const a = await run(['bandit', 'simulate', '--policy', 'thompson', '--means', '0.9,0.8,0.5', '--steps', '5000', '--json'])
    expect(a.code).toBe(0)
    const j = JSON.parse(a.out)
    expect(j.simulated).toBe(true)
    expect(j.policy.kind).toBe('thompson')
    expect(j.bestArm).toBe('0')
    expect(j.logLogSlope).toBeLessThan(0.8)
    expect(j.pulls.reduce((s: number, x: number) => s + x, 0)).toBe(5000)
    const b = await run(['bandit', 'simulate', '--policy', 'thompson', '--means', '0.9,0.8,0.5', '--steps', '5000', '--json'])
    expect(JSON.parse(b.out).regret).toBe(j.regret)
  })

  it('should recover from drift with sliding-window-ucb and save a resumable state', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-bandit-'))
    try {
      const r = await run(['bandit', 'simulate', '--policy', 'sliding-window-ucb', '--means', '0.8,0.5,0.3', '--drift-at', '5000', '--drift-means', '0.8,0.5,0.95', '--save', 'state.json', '--json'], dir)
      expect(r.code).toBe(0)
      const j = JSON.parse(r.out)
      expect(j.bestArm).toBe('2')
      expect(j.trueBestArm).toBe(2)
      const b = Bandit.fromJSON(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')))
      expect(b.totalPulls()).toBe(10000)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('should exit 2 on bad flags', async () => {
    expect((await run(['bandit', 'simulate', '--policy', 'greedy'])).code).toBe(2)
    expect((await run(['bandit', 'simulate', '--means', '0.5,x'])).code).toBe(2)
    expect((await run(['bandit', 'simulate', '--drift-at', '10', '--drift-means', '0.1'])).code).toBe(2)
  })
})
