/** A tiny per-id event bus: the job queue publishes run and tune events, SSE handlers subscribe. */
import type { TunerEvent } from '@kerneltune/tuner'

export type Listener = (e: TunerEvent) => void

export interface EventBus {
  publish(id: string, e: TunerEvent): void
  subscribe(id: string, l: Listener): () => void
}

export function createBus(): EventBus {
  const subs = new Map<string, Set<Listener>>()
  return {
    publish(id, e) {
      for (const l of subs.get(id) ?? []) {
        try { l(e) } catch { /* a broken subscriber must not stop the job */ }
      }
    },
    subscribe(id, l) {
      const set = subs.get(id) ?? new Set()
      set.add(l)
      subs.set(id, set)
      return () => {
        set.delete(l)
        if (set.size === 0) subs.delete(id)
      }
    },
  }
}
