/**
 * Tree-structured Parzen estimator for discrete spaces (independent per parameter, as in Optuna's
 * default). Observations are split into the best γ(n) = min(⌈0.1·n⌉, 25) and the rest (failures
 * always in the rest); each parameter gets a smoothed distribution l(x) over the good group and
 * g(x) over the rest: counts plus a uniform prior for categorical parameters, a discretised
 * Gaussian kernel over value ranks for ordinal and integer ones. Candidates are drawn from l(x)
 * among the free valid configurations and the one with the largest l(x)/g(x) is picked.
 */
import type { Indices } from './space.ts'
import { randomPicks, type Observed, type ProposeContext, type Proposer } from './strategy.ts'

export interface TpeOptions {
  /** Random evaluations before TPE takes over (default 10; seed points count). */
  readonly initial?: number
  /** Candidates drawn from l(x) per suggestion (default 24). */
  readonly candidates?: number
  /** Weight of the uniform prior component (default 1). */
  readonly priorWeight?: number
}

/** log density per parameter value, for one group. */
function groupDensity(ctx: ProposeContext, group: readonly Observed[], priorWeight: number): Float64Array[] {
  return ctx.space.params.map((p, pi) => {
    const k = p.values.length
    const w = new Float64Array(k).fill(priorWeight / k)
    if (p.type === 'categorical' || k < 3) {
      for (const o of group) w[o.idx[pi]!]! += 1
    } else {
      const bw = Math.max(0.5, ((k - 1) * Math.max(group.length, 1) ** -0.2) / 2)
      for (const o of group) {
        const c = o.idx[pi]!
        let z = 0
        const row = new Float64Array(k)
        for (let v = 0; v < k; v++) z += row[v] = Math.exp(-0.5 * ((v - c) / bw) ** 2)
        for (let v = 0; v < k; v++) w[v]! += row[v]! / z
      }
    }
    const total = w.reduce((a, b) => a + b, 0)
    return w.map((x) => Math.log(x / total))
  })
}

const logDensity = (dens: readonly Float64Array[], idx: Indices) => {
  let s = 0
  for (let i = 0; i < dens.length; i++) s += dens[i]![idx[i]!]!
  return s
}

export function tpeProposer(options: TpeOptions = {}): Proposer {
  const initial = options.initial ?? 10
  const nCand = options.candidates ?? 24
  const priorWeight = options.priorWeight ?? 1

  function proposeOne(ctx: ProposeContext): Indices | undefined {
    const { space, rng } = ctx
    const ok = ctx.observations.filter((o) => !o.failed && o.value !== undefined).sort((a, b) => a.value! - b.value!)
    const nBelow = Math.min(Math.ceil(0.1 * ctx.observations.length), 25, ok.length)
    const below = ok.slice(0, nBelow)
    const above = [...ok.slice(nBelow), ...ctx.observations.filter((o) => o.failed || o.value === undefined)]
    const l = groupDensity(ctx, below, priorWeight)
    const g = groupDensity(ctx, above, priorWeight)
    const cands: Indices[] = []
    if (space.finite) {
      // Draw from l(x) restricted to the free valid configurations.
      const free = space.finite.filter((idx) => !ctx.taken.has(space.key(idx)))
      if (free.length === 0) return undefined
      const logw = free.map((idx) => logDensity(l, idx))
      const top = Math.max(...logw)
      const cum = new Float64Array(free.length)
      let acc = 0
      logw.forEach((lw, i) => (cum[i] = acc += Math.exp(lw - top)))
      for (let c = 0; c < nCand; c++) {
        const r = rng.next() * acc
        let lo = 0
        let hi = free.length - 1
        while (lo < hi) {
          const mid = (lo + hi) >> 1
          if (cum[mid]! > r) hi = mid
          else lo = mid + 1
        }
        cands.push(free[lo]!)
      }
    } else {
      // Per-parameter draws from l, kept when valid and free.
      const probs = l.map((row) => Array.from(row, Math.exp))
      for (let attempt = 0; cands.length < nCand && attempt < nCand * 200; attempt++) {
        const idx = probs.map((pr) => {
          let r = rng.next()
          for (let v = 0; v < pr.length; v++) if ((r -= pr[v]!) <= 0) return v
          return pr.length - 1
        })
        if (!ctx.taken.has(space.key(idx)) && space.isValid(idx)) cands.push(idx)
      }
      if (cands.length === 0) return space.sample(rng, ctx.taken)
    }
    let best: Indices | undefined
    let bestScore = -Infinity
    for (const idx of cands) {
      const s = logDensity(l, idx) - logDensity(g, idx)
      if (s > bestScore) (bestScore = s), (best = idx)
    }
    return best
  }

  function propose(ctx: ProposeContext, count: number): Indices[] {
    if (ctx.observations.length + ctx.pending.length < initial) return randomPicks(ctx, count)
    const out: Indices[] = []
    while (out.length < count) {
      const idx = proposeOne(ctx)
      if (!idx) break
      ctx.taken.add(ctx.space.key(idx))
      out.push(idx)
    }
    return out
  }
  return { propose, state: () => null }
}
