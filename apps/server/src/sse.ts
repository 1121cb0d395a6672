/**
 * Following a run or a tune session over Server-Sent Events: the current state first, then every
 * event the job queue publishes for it, until its final event, the client leaving, or the job
 * ending without one. When nothing happens for a while a heartbeat keeps proxies from closing the
 * idle stream, and the subject's stored state is checked again (a job on another worker, or one
 * that died, publishes nothing here).
 */
import type { TunerEvent } from '@kerneltune/tuner'
import type { Context } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { EventBus } from './bus.ts'

/** Sends one event: its type names it on the stream, the whole object is its data. */
export type SendEvent = (e: { readonly type: string; readonly [k: string]: unknown }) => Promise<void>

export interface Follow<S> {
  /** The event type after which the stream ends. */
  finalType: string
  /** Reads the subject's stored state, sent first as a `state` event. */
  load(): Promise<S>
  /** Whether the subject has ended already, in that state (having sent what says so): the stream ends too. */
  ended(state: S, send: SendEvent): Promise<boolean>
  /** After a quiet interval: true when the subject has ended (having sent what says so). */
  quiet(send: SendEvent): Promise<boolean>
  /** Quiet interval in ms (default 15 s). */
  heartbeatMs?: number
}

/** Follows the subject `id` publishes events under on `bus`. */
export function followSse<S extends object>(c: Context, bus: EventBus, id: string, f: Follow<S>): Response {
  return streamSSE(c, async (stream) => {
    let seq = 0
    const send: SendEvent = (e) => stream.writeSSE({ event: e.type, id: String(seq++), data: JSON.stringify(e) })
    const live: TunerEvent[] = []
    let wake: (() => void) | undefined
    // Subscribe before reading the state, so that nothing falls between the two.
    const off = bus.subscribe(id, (e) => {
      live.push(e)
      wake?.()
    })
    stream.onAbort(() => { off(); wake?.() })
    try {
      const now = await f.load()
      await send({ type: 'state', ...now })
      if (await f.ended(now, send)) return
      for (;;) {
        while (live.length) {
          const e = live.shift()!
          await send(e)
          if (e.type === f.finalType) return
        }
        if (stream.aborted) return
        let timer: ReturnType<typeof setTimeout> | undefined
        await new Promise<void>((r) => {
          wake = r
          timer = setTimeout(r, f.heartbeatMs ?? 15_000)
        })
        clearTimeout(timer)
        wake = undefined
        if (!live.length) {
          if (await f.quiet(send)) return
          await stream.writeSSE({ event: 'heartbeat', data: '{}' })
        }
      }
    } finally {
      off()
    }
  })
}
