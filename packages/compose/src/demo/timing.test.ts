import { describe, expect, it } from 'vitest'
import { demoOrigin, renderWallTime, wallSeconds } from './timing.ts'

const start = 1_800_000_000_000

describe('demoOrigin', () => {
  it('should start at bootstrap.mjs when it ran just before this process, with its install check', () => {
    const env = { KERNELTUNE_BOOTSTRAP_STARTED_AT: String(start - 5000.5), KERNELTUNE_BOOTSTRAP_INSTALL_MS: '3000' }
    expect(demoOrigin(env, start)).toEqual({ from: 'npm run demo', at: start - 5000.5, installMs: 3000 })
  })

  it('should fall back to the process start for a missing, malformed, future or day-old bootstrap start', () => {
    for (const at of [undefined, 'soon', '-1', String(start + 1), String(start - 86_400_001)]) {
      expect(demoOrigin({ KERNELTUNE_BOOTSTRAP_STARTED_AT: at }, start)).toEqual({ from: 'process start', at: start })
    }
  })

  it('should drop an install time longer than the time since the bootstrap started', () => {
    expect(demoOrigin({ KERNELTUNE_BOOTSTRAP_STARTED_AT: String(start - 1000), KERNELTUNE_BOOTSTRAP_INSTALL_MS: '2000' }, start)).toEqual({ from: 'npm run demo', at: start - 1000 })
  })
})

describe('wallSeconds', () => {
  it('should split the wall time into install, start-up, the phases and the rest, adding up to the total', () => {
    const origin = { from: 'npm run demo' as const, at: start, installMs: 3000 }
    const s = wallSeconds(origin, start + 5000, { detect: 1, synth: 0.5, predict: 0.01, measure: 4, sweep: 20, binary: 0.02, serve: 8 }, start + 40_000)
    expect(s.total).toBe(40)
    expect(s.install).toBe(3)
    expect(s.startup).toBe(2)
    expect(s.other).toBeCloseTo(40 - 3 - 2 - 33.53, 9)
    const sum = Object.entries(s).filter(([k]) => k !== 'total').reduce((a, [, v]) => a + (v ?? 0), 0)
    expect(sum).toBeCloseTo(s.total, 9)
  })

  it('should have no install phase when run directly, start-up counting from the process start', () => {
    const s = wallSeconds({ from: 'process start', at: start }, start + 700, { detect: 1 }, start + 2000)
    expect(s).not.toHaveProperty('install')
    expect(s.startup).toBeCloseTo(0.7, 9)
    expect(s.other).toBeCloseTo(0.3, 9)
  })
})

describe('renderWallTime', () => {
  it('should name the origin and every phase, the binary with how it was found', () => {
    const origin = { from: 'npm run demo' as const, at: start, installMs: 3000 }
    const line = renderWallTime(origin, wallSeconds(origin, start + 5000, { detect: 1, binary: 0 }, start + 10_000), 'cached')
    expect(line).toBe('wall time 10.0 s from the start of `npm run demo`: install check 3.0, start-up 2.0, detect 1.0, llama-server binary 0.0 (cached), report and clean-up 4.0')
  })
})
