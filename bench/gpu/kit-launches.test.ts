import { describe, expect, it } from 'vitest'
import { launchLines } from './kit-launches.ts'

describe('the kit\'s launch lines', () => {
  it('should print one line per launch with its phases, then the pre-launch and every round', () => {
    const lines = launchLines({
      launches: {
        baseline: [{ reason: 'pre-launch', ok: true, phases: { spawnedAt: '2026-11-27T22:00:00Z', setupMs: 2, listeningMs: 120, modelLoadedMs: 2181.5, readyMs: 2182.9, warmupStartMs: 2185.6, warmupEndMs: 4486.3, warmupRequests: 16 } }],
        ded22faa4bf41078: [{ reason: 'pre-launch', ok: false, error: 'llama-server exited (code 1) before it was ready', phases: { setupMs: 1, listeningMs: 90 } }],
      },
      roundSeconds: [4.56, 3.78],
      prepareSeconds: 13.24,
    })
    expect(lines).toEqual([
      'launch baseline (pre-launch): listening 0.1 s, model loaded 2.2 s, ready 2.2 s, warm-up 2.2 s..4.5 s (16 requests)',
      'launch ded22faa4bf41078 (pre-launch): listening 0.1 s, model loaded -, ready -, FAILED: llama-server exited (code 1) before it was ready',
      'pre-launch 13.2 s; rounds: 1: 4.6 s, 2: 3.8 s',
    ])
  })

  it('should print nothing for a result without launches (an older CLI, or no result)', () => {
    expect(launchLines(null)).toEqual([])
    expect(launchLines({ rounds: 2 })).toEqual([])
  })
})
