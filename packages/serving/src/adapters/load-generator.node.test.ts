import { describe, expect, it } from 'vitest'
import { runLoad } from '../load-generator.ts'
import { crossCheck } from '../cross-check.ts'
import { parsePrometheus } from '../prometheus.ts'
import { INSTANT_SERVER_METRICS, startInstantServer } from './instant-server.node.ts'

const workload = { kind: 'synthetic', promptTokens: 12, outputTokens: 5 } as const

describe('runLoad against a local OpenAI-compatible server', () => {
  it('should run a closed loop, count tokens from usage and time every chunk', async () => {
    const s = await startInstantServer({ tokenDelayMs: 2 })
    try {
      const r = await runLoad({ baseUrl: s.baseUrl, workload, requests: 8, concurrency: 3, warmups: 2 })
      expect(s.served()).toBe(10)
      expect(r.mode).toBe('closed')
      expect(r.metrics.requests).toEqual({ completed: 8, failed: 0 })
      expect(r.metrics.tokenSource).toBe('usage')
      expect(r.metrics.totalOutputTokens).toBe(40)
      expect(r.metrics.totalPromptTokens).toBe(96)
      // 5 chunks per request: 4 gaps each.
      expect(r.metrics.itlMs.count).toBe(32)
      expect(r.metrics.tpotMs.count).toBe(8)
      expect(r.records.every((x) => x.serverTimings?.predictedN === 5)).toBe(true)
    } finally {
      await s.close()
    }
  })

  it('should stream chat completions too', async () => {
    const s = await startInstantServer()
    try {
      const r = await runLoad({ baseUrl: s.baseUrl, api: 'chat', workload, requests: 3, concurrency: 2 })
      expect(r.metrics.requests.completed).toBe(3)
      expect(r.metrics.totalOutputTokens).toBe(15)
    } finally {
      await s.close()
    }
  })

  it('should run an open loop whose arrivals follow the seed, never above the concurrency cap', async () => {
    const s = await startInstantServer({ tokenDelayMs: 1 })
    try {
      const a = await runLoad({ baseUrl: s.baseUrl, workload, requests: 12, rate: 200, concurrency: 2, seed: 5, warmups: 0 })
      expect(a.mode).toBe('open')
      expect(a.metrics.requests.completed).toBe(12)
      // At most 2 in flight: at any request's start, fewer than 2 others are running.
      for (const r of a.records) {
        const overlapping = a.records.filter((o) => o !== r && o.startMs <= r.startMs && o.startMs + o.e2eMs > r.startMs)
        expect(overlapping.length).toBeLessThan(2)
      }
    } finally {
      await s.close()
    }
  })

  it('should fall back to counting chunks, and say so, when the server sends no usage', async () => {
    const s = await startInstantServer({ omitUsage: true })
    try {
      const r = await runLoad({ baseUrl: s.baseUrl, workload, requests: 2 })
      expect(r.metrics.tokenSource).toBe('chunks')
      expect(r.metrics.totalOutputTokens).toBe(10)
    } finally {
      await s.close()
    }
  })

  it('should record failed requests with the server error, and fail when even the warm-up fails', async () => {
    const s = await startInstantServer()
    try {
      const bad = { ...s, baseUrl: `${s.baseUrl}/nope` }
      await expect(runLoad({ baseUrl: bad.baseUrl, workload, requests: 1 })).rejects.toThrow(/warm-up request .* failed: HTTP 404/)
      const r = await runLoad({ baseUrl: bad.baseUrl, workload, requests: 2, warmups: 0 })
      expect(r.metrics.requests).toEqual({ completed: 0, failed: 2 })
      expect(r.metrics.errors[0]!.message).toMatch(/HTTP 404/)
    } finally {
      await s.close()
    }
  })

  it('should time the first chunk when the tokens of a request only arrive together at the end', async () => {
    const s = await startInstantServer({ silentTokens: 5 })
    try {
      const r = await runLoad({ baseUrl: s.baseUrl, workload, requests: 2 })
      expect(r.metrics.requests).toEqual({ completed: 2, failed: 0 })
      expect(r.metrics.totalOutputTokens).toBe(10)
      expect(r.metrics.itlMs.count).toBe(0)
      expect(r.metrics.ttftMs.count).toBe(2)
    } finally {
      await s.close()
    }
  })

  it('should refuse bad options with every problem listed', async () => {
    await expect(runLoad({ baseUrl: 'localhost:1', workload, requests: 0, concurrency: 0 })).rejects.toThrow(/requests must be .*concurrency must be .*baseUrl must be/)
  })

  it('should put server counters next to the client figures', async () => {
    const s = await startInstantServer()
    try {
      const before = parsePrometheus(await (await fetch(`${s.baseUrl}/metrics`)).text())
      const r = await runLoad({ baseUrl: s.baseUrl, workload, requests: 4, concurrency: 2, warmups: 0 })
      const after = parsePrometheus(await (await fetch(`${s.baseUrl}/metrics`)).text())
      const c = crossCheck(r.records, before, after, INSTANT_SERVER_METRICS)
      expect(c.serverReported.outputTokens).toBe(20)
      expect(c.gaps.outputTokens?.relative).toBe(0)
      expect(c.gaps.tpotVsServerMs).toBeDefined()
      expect(c.lines.some((l) => l.startsWith('output tokens: 20'))).toBe(true)
    } finally {
      await s.close()
    }
  })
})
