/**
 * The GP strategy. Objective values are modelled on a log scale when all are positive (runtimes
 * span orders of magnitude and their noise is roughly multiplicative), then standardised. Failed
 * configurations enter the GP at the worst value seen, which pushes the search away from their
 * neighbourhood. Candidates: every free valid configuration when there are at most `pool` of them,
 * else a random `pool` of them plus the one-parameter neighbours of the best points and of the best
 * candidates. Batches use the Kriging believer: each pick is conditioned on as a fantasy (which
 * shrinks nearby variance), and so are configurations still pending.
 */
import { expectedImprovement, upperConfidenceBound } from './acquisition.ts'
import { buildGp, defaultHyper, fitHyper, type GpHyper } from './gp.ts'
import type { Indices } from './space.ts'
import { randomPicks, type ProposeContext, type Proposer } from './strategy.ts'

export interface BoOptions {
  /** 'ei' (expected improvement, default) or 'ucb' (lower confidence bound for minimisation). */
  readonly acquisition?: 'ei' | 'ucb'
  /** UCB exploration weight (default 2). */
  readonly kappa?: number
  /** Random evaluations before the GP takes over (default 10; seed points count). */
  readonly initial?: number
  /** Candidate pool size when the space has more free configurations (default 2000). */
  readonly pool?: number
  /** Model log(value) when all values are positive (default true). */
  readonly logTransform?: boolean
}

interface BoState {
  hyper?: GpHyper
}

/** Adam steps for the hyperparameters at n points: more while the GP is cheap, a few refining steps warm-started from the last fit once it is not. */
export function fitSteps(n: number, warm: boolean): number {
  if (!warm) return 60
  if (n <= 40) return 25
  return Math.max(3, Math.round(25 * (40 / n) ** 2))
}

function concat(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}

export function boProposer(options: BoOptions = {}, saved?: unknown): Proposer {
  const initial = options.initial ?? 10
  const poolSize = options.pool ?? 2000
  const kappa = options.kappa ?? 2
  const acq = options.acquisition ?? 'ei'
  const st: BoState = { ...((saved as BoState | null) ?? {}) }

  function propose(ctx: ProposeContext, count: number): Indices[] {
    const { space, observations } = ctx
    const ok = observations.filter((o) => !o.failed && o.value !== undefined)
    if (observations.length + ctx.pending.length < initial || ok.length < 2 || space.dim === 0) return randomPicks(ctx, count)

    // Training data on the transformed, standardised scale.
    const useLog = (options.logTransform ?? true) && ok.every((o) => o.value! > 0)
    const tf = (v: number) => (useLog ? Math.log(v) : v)
    const worst = Math.max(...ok.map((o) => tf(o.value!)))
    const n = observations.length
    const d = space.dim
    const x = new Float64Array(n * d)
    const yRaw = new Float64Array(n)
    const noiseRaw = new Float64Array(n)
    observations.forEach((o, i) => {
      space.encode(o.idx, x, i * d)
      if (o.failed || o.value === undefined) yRaw[i] = worst
      else {
        yRaw[i] = tf(o.value)
        const varOf = o.variance ?? 0
        noiseRaw[i] = useLog ? varOf / (o.value * o.value) : varOf
      }
    })
    let mu = 0
    for (const v of yRaw) mu += v
    mu /= n
    let sd = 0
    for (const v of yRaw) sd += (v - mu) ** 2
    sd = Math.sqrt(sd / n) || 1
    const y = yRaw.map((v) => (v - mu) / sd)
    const noise = noiseRaw.map((v) => v / (sd * sd))
    const warm = st.hyper !== undefined && st.hyper.logLengthscales.length === d
    const hyper = fitHyper(x, y, noise, n, d, warm ? st.hyper! : defaultHyper(d), fitSteps(n, warm))
    st.hyper = hyper
    const gp = buildGp(x, y, noise, n, d, hyper)
    let best = Infinity
    observations.forEach((o, i) => {
      if (!o.failed && o.value !== undefined) best = Math.min(best, y[i]!)
    })

    // Candidate pool.
    const pool: Indices[] = []
    const inPool = new Set<string>()
    const add = (idx: Indices) => {
      const k = space.key(idx)
      if (!ctx.taken.has(k) && !inPool.has(k)) inPool.add(k), pool.push(idx)
    }
    const free = space.finite && space.finite.length - ctx.taken.size <= poolSize
    if (free) for (const idx of space.finite!) add(idx)
    else {
      const order = observations.map((_, i) => i).filter((i) => !observations[i]!.failed).sort((a, b) => y[a]! - y[b]!)
      for (const i of order.slice(0, 5)) for (const nb of space.neighbours(observations[i]!.idx)) add(nb)
      const excl = new Set([...ctx.taken, ...inPool])
      for (let tries = 0; pool.length < poolSize && tries < poolSize * 3; tries++) {
        const idx = space.sample(ctx.rng, excl)
        if (!idx) break
        excl.add(space.key(idx))
        add(idx)
      }
    }
    if (pool.length === 0) return []
    const score = (m: number, v: number) => (acq === 'ucb' ? upperConfidenceBound(m, Math.sqrt(v), kappa) : expectedImprovement(m, Math.sqrt(v), best))
    const encodeAll = (list: readonly Indices[]) => {
      const e = new Float64Array(list.length * d)
      list.forEach((idx, i) => space.encode(idx, e, i * d))
      return e
    }
    let enc: Float64Array = encodeAll(pool)
    let pred: { mean: Float64Array; variance: Float64Array; v: Float64Array } = gp.predict(enc, pool.length)
    if (!free) {
      // One round of local refinement around the most promising candidates; only the added
      // neighbours are predicted, then appended.
      const scores = pool.map((_, i) => score(pred.mean[i]!, pred.variance[i]!))
      const top = pool.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]!).slice(0, 10)
      const before = pool.length
      for (const i of top) for (const nb of space.neighbours(pool[i]!)) add(nb)
      if (pool.length > before) {
        const extraEnc = encodeAll(pool.slice(before))
        const extra = gp.predict(extraEnc, pool.length - before)
        enc = concat(enc, extraEnc)
        pred = { mean: concat(pred.mean, extra.mean), variance: concat(pred.variance, extra.variance), v: concat(pred.v, extra.v) }
      }
    }

    // Probability that a candidate runs at all: a kernel-weighted vote of the observed outcomes
    // (Beta(1,1) prior), multiplied into EI so the search avoids regions that fail to compile or run.
    const feasible = new Float64Array(pool.length).fill(1)
    if (observations.some((o) => o.failed)) {
      for (let q = 0; q < pool.length; q++) {
        let okW = 1
        let all = 2
        for (let i = 0; i < n; i++) {
          const w = gp.kernel(enc, q * d, x, i * d) / gp.signal
          all += w
          if (!observations[i]!.failed) okW += w
        }
        feasible[q] = okW / all
      }
    }
    const acquire = (i: number) => {
      const a = score(mean[i]!, variance[i]!)
      if (acq === 'ei') return a * feasible[i]!
      // UCB can be negative, so a product would reward infeasibility; shift by the probability instead.
      return a - kappa * (1 - feasible[i]!)
    }

    // Tracked points: the pool, then pending configurations (fantasies only).
    const m = pool.length
    const pendEnc = encodeAll(ctx.pending)
    const pendPred = gp.predict(pendEnc, ctx.pending.length)
    const total = m + ctx.pending.length
    const allEnc = new Float64Array(total * d)
    allEnc.set(enc, 0)
    allEnc.set(pendEnc, m * d)
    const v = new Float64Array(total * n)
    v.set(pred.v, 0)
    v.set(pendPred.v, m * n)
    const variance = new Float64Array(total)
    variance.set(pred.variance, 0)
    variance.set(pendPred.variance, m)
    const mean = pred.mean
    const u: number[][] = Array.from({ length: total }, () => [])
    const condition = (f: number) => {
      const s = Math.sqrt(variance[f]! + gp.noiseFloor)
      const uf = u[f]!.slice()
      const vf = f * n
      for (let t = 0; t < total; t++) {
        let c = gp.kernel(allEnc, t * d, allEnc, f * d)
        const vt = t * n
        for (let i = 0; i < n; i++) c -= v[vt + i]! * v[vf + i]!
        const ut = u[t]!
        for (let j = 0; j < uf.length; j++) c -= ut[j]! * uf[j]!
        const w = c / s
        ut.push(w)
        variance[t] = Math.max(variance[t]! - w * w, 1e-12)
      }
    }
    for (let p = 0; p < ctx.pending.length; p++) condition(m + p)
    const chosen = new Set<number>()
    const out: Indices[] = []
    while (out.length < count && chosen.size < m) {
      let arg = -1
      let top = -Infinity
      for (let i = 0; i < m; i++) {
        if (chosen.has(i)) continue
        const a = acquire(i)
        if (a > top) (top = a), (arg = i)
      }
      if (arg < 0) break
      chosen.add(arg)
      ctx.taken.add(space.key(pool[arg]!))
      out.push(pool[arg]!)
      if (out.length < count) condition(arg)
    }
    if (out.length < count) out.push(...randomPicks(ctx, count - out.length))
    return out
  }
  return { propose, state: () => ({ ...st }) }
}
