/**
 * A seeded random-search strategy over a finite space (never repeats a configuration, asks seed
 * points first). The tuner's fallback when no Bayesian strategy is registered, and a baseline to
 * compare one against. Its whole state is JSON: the seed stream position, the asked and told lists.
 */
import { KerneltuneError, type SearchConfig, type SearchObservation, type SearchSpaceDefinition, type Searcher, type SearchStrategyPlugin } from '@kerneltune/core'

export const RANDOM_STRATEGY = 'tuner-random'

interface State { rng: number; asked: SearchConfig[]; told: SearchObservation[]; queue: SearchConfig[] }

const key = (c: SearchConfig) => JSON.stringify(Object.entries(c).sort())

function allConfigs(space: SearchSpaceDefinition): SearchConfig[] {
  if (space.validConfigs) return [...space.validConfigs]
  let out: Record<string, string | number | boolean>[] = [{}]
  for (const p of space.params) out = out.flatMap((c) => p.values.map((v) => ({ ...c, [p.name]: v })))
  return out.filter((c) => space.isValid?.(c) ?? true)
}

function searcher(space: SearchSpaceDefinition, state: State): Searcher {
  const all = allConfigs(space)
  const next = () => {
    // mulberry32: one 32-bit integer of state, so a restored search continues the same stream.
    state.rng = (state.rng + 0x6d2b79f5) >>> 0
    let t = state.rng
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    ask(count = 1) {
      const seen = new Set(state.asked.map(key))
      const out: SearchConfig[] = []
      while (out.length < count) {
        let pick = state.queue.shift()
        if (pick && seen.has(key(pick))) continue
        if (!pick) {
          const left = all.filter((c) => !seen.has(key(c)))
          if (!left.length) break
          pick = left[Math.floor(next() * left.length)]!
        }
        seen.add(key(pick))
        state.asked.push(pick)
        out.push(pick)
      }
      return out
    },
    tell(o) { state.told.push(o) },
    best() {
      const ok = state.told.filter((o) => !o.failed && o.value !== undefined)
      const b = ok.sort((a, c) => a.value! - c.value!)[0]
      return b ? { config: b.config, value: b.value! } : undefined
    },
    done: () => state.asked.length >= all.length,
    seed(points) { state.queue.push(...points) },
    toJSON: () => structuredClone(state),
  }
}

export function randomStrategy(): SearchStrategyPlugin {
  return {
    name: RANDOM_STRATEGY,
    kind: 'search-strategy',
    apiVersion: 1,
    create(space, options) {
      return searcher(space, { rng: options.seed >>> 0, asked: [], told: [], queue: [...(options.seedPoints ?? [])] })
    },
    restore(space, state) {
      const s = state as State
      if (!s || typeof s.rng !== 'number' || !Array.isArray(s.asked)) throw new KerneltuneError('INVALID_INPUT', 'not a tuner-random state')
      return searcher(space, structuredClone(s))
    },
  }
}
