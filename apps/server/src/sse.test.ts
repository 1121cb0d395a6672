import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { TunerEvent } from '@kerneltune/tuner'
import { createBus, type EventBus } from './bus.ts'
import { followSse, type Follow } from './sse.ts'

/** A bus that counts its subscribers, so a test can see the stream let go of it. */
function countingBus(): EventBus & { subscribers: () => number } {
  const bus = createBus()
  let n = 0
  return {
    publish: bus.publish,
    subscribe(id, l) {
      n++
      const off = bus.subscribe(id, l)
      return () => { n--; off() }
    },
    subscribers: () => n,
  }
}

const serve = (f: Omit<Follow<{ status: string }>, 'finalType' | 'load'>, bus: EventBus) => {
  const app = new Hono().get('/events', (c) => followSse(c, bus, 'r1', { finalType: 'run.finished', heartbeatMs: 20, load: async () => ({ status: 'running' }), ...f }))
  return app.request('/events')
}

const events = (text: string) => text.split('\n\n').filter(Boolean).map((b) => Object.fromEntries(b.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)])))

const ev = (type: string, extra: object = {}) => ({ type, ...extra }) as unknown as TunerEvent

describe('followSse', () => {
  it('should send the state, then the published events in order with ids, and end at the final event', async () => {
    const bus = countingBus()
    const res = await serve({
      async ended(state) {
        expect(state).toEqual({ status: 'running' })
        // Published after the subscription and before the loop: nothing may fall between.
        bus.publish('r1', ev('run.progress', { done: 1 }))
        setTimeout(() => { bus.publish('r1', ev('run.finished')); bus.publish('r1', ev('run.progress', { done: 2 })) }, 5)
        return false
      },
      quiet: async () => false,
    }, bus)
    const got = events(await res.text())
    expect(got.map((e) => [e.event, e.id])).toEqual([['state', '0'], ['run.progress', '1'], ['run.finished', '2']])
    expect(JSON.parse(got[0]!.data!)).toEqual({ type: 'state', status: 'running' })
    expect(JSON.parse(got[1]!.data!)).toEqual({ type: 'run.progress', done: 1 })
    expect(bus.subscribers()).toBe(0)
  })

  it('should end at once when the subject has ended already', async () => {
    const bus = countingBus()
    const res = await serve({ ended: async (_, send) => (await send({ type: 'run.finished' }), true), quiet: async () => false }, bus)
    expect(events(await res.text()).map((e) => e.event)).toEqual(['state', 'run.finished'])
    expect(bus.subscribers()).toBe(0)
  })

  it('should send heartbeats while quiet and end when the quiet check says the subject ended', async () => {
    const bus = countingBus()
    let checks = 0
    const res = await serve({
      ended: async () => false,
      async quiet(send) {
        if (++checks < 3) return false
        await send({ type: 'run.finished' })
        return true
      },
    }, bus)
    expect(events(await res.text()).map((e) => e.event)).toEqual(['state', 'heartbeat', 'heartbeat', 'run.finished'])
    expect(checks).toBe(3)
  })

  it('should let go of the bus when the client leaves', async () => {
    const bus = countingBus()
    const res = await serve({ ended: async () => false, quiet: async () => false }, bus)
    const reader = res.body!.getReader()
    await reader.read()
    expect(bus.subscribers()).toBe(1)
    await reader.cancel()
    await expect.poll(() => bus.subscribers()).toBe(0)
  })
})
