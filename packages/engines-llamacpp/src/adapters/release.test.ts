import { describe, expect, it } from 'vitest'
import { releaseWithin } from './release.ts'

describe('releaseWithin (a model release with a deadline)', () => {
  it('should say released when the dispose settles, resolved or rejected, before the deadline', async () => {
    expect(await releaseWithin(async () => undefined, 1000)).toBe(true)
    expect(await releaseWithin(async () => Promise.reject(new Error('native dispose failed')), 1000)).toBe(true)
  })

  it('should give up at the deadline on a dispose that never settles, as node-llama-cpp after a collected failed context', async () => {
    const t0 = Date.now()
    expect(await releaseWithin(() => new Promise(() => {}), 50)).toBe(false)
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45)
  })
})
