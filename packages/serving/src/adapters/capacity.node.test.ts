import { describe, expect, it } from 'vitest'
import { parseSlo } from '../objectives.ts'
import { serverCapacity } from './capacity.node.ts'
import { startInstantServer } from './instant-server.node.ts'
import { openServer } from './serving-session.node.ts'

const load = { workload: { kind: 'synthetic', promptTokens: 8, outputTokens: 4 }, requests: 2, warmups: 0 } as const
// Every request of the instant server meets a 60 s end-to-end limit: only the bounds, or the deadline, end a search.
const slo = parseSlo('e2e_p99_ms=60000')

describe('serverCapacity with a deadline', () => {
  it('should start no measurement once the deadline has come, and end a search it cuts with the interval it had', async () => {
    const s = await startInstantServer({ tokenDelayMs: 20 })
    try {
      const server = await openServer({ target: { kind: 'endpoint', url: s.baseUrl } })
      const common = { server, slo, unit: 'concurrency', start: 1, requests: 2, load } as const
      // A deadline that has passed: nothing is sent, nothing is known.
      const late = await serverCapacity({ ...common, deadlineAt: Date.now() - 1 })
      expect(late).toMatchObject({ stop: 'deadline', value: null, low: 0, high: null, points: [] })
      expect(s.served()).toBe(0)
      // A deadline far off changes nothing: the objectives hold up to the top level.
      const far = await serverCapacity({ ...common, max: 4, deadlineAt: Date.now() + 3_600_000 })
      expect(far).toMatchObject({ stop: 'max', value: 4 })
      // Up to 1024 streams at 20 ms a token cannot finish before a deadline 0.5 s away: the search
      // ends there, keeping only measurements that completed (each of its 2 x level requests).
      const cut = await serverCapacity({ ...common, deadlineAt: Date.now() + 500 })
      expect(cut.stop).toBe('deadline')
      expect(cut.high).toBeNull()
      for (const p of cut.points) expect(p.figures.requests).toEqual({ completed: Math.max(2, 2 * p.level), failed: 0 })
      expect(cut.value).toBe(cut.points.at(-1)?.level ?? null)
    } finally {
      await s.close()
    }
  }, 60_000)
})
