/**
 * Two pieces the GP strategy uses around its model:
 *
 * - `spaceFillingPicks`: the initial design. A random design spends its few points without
 *   regard to one another (two may land side by side while a whole region stays unseen) or to
 *   what they taught: on a space where half the configurations fail, random points keep landing
 *   among the failures. Here each pick is the candidate farthest from everything already
 *   observed or pending (greedy maximin over valid configurations only), and that distance is
 *   weighted by a feasibility vote of the observed outcomes, so the design learns from its own
 *   failures as it goes.
 * - `modelSubset`: which observations the GP is fitted on once there are more than `cap`. An
 *   exact GP costs O(n³) to fit and O(m·n²) to score m candidates, so at 1,000 observations one
 *   suggestion would take seconds. The subset keeps the neighbourhood of the incumbent (where the
 *   search exploits: a local model, as in TuRBO's trust region), the best observations anywhere
 *   (other basins), and an even spread of the rest in observation order, so the model still knows
 *   which regions were tried and were poor instead of reverting to its prior mean there.
 */
import type { Indices } from './space.ts'
import { randomPicks, type ProposeContext } from './strategy.ts'

/** Matérn 5/2 at unit signal and lengthscale `ls`, on a squared distance. */
function similarity(dist2: number, ls: number): number {
  const r = Math.sqrt(dist2) / ls
  return (1 + Math.sqrt(5) * r + (5 / 3) * r * r) * Math.exp(-Math.sqrt(5) * r)
}

function dist2(a: Float64Array, ao: number, b: Float64Array, bo: number, d: number): number {
  let s = 0
  for (let c = 0; c < d; c++) {
    const t = a[ao + c]! - b[bo + c]!
    s += t * t
  }
  return s
}

/**
 * Up to `count` configurations for the initial design (see the head). `candidates` bounds the
 * work: the free valid configurations when there are at most that many, else a random sample of
 * that size. The first pick of an empty search is random (no point is farther than another).
 */
export function spaceFillingPicks(ctx: ProposeContext, count: number, candidates = 1000): Indices[] {
  const { space, observations, pending, rng, taken } = ctx
  const d = space.dim
  if (d === 0) return randomPicks(ctx, count)
  const anchors = [...observations.map((o) => ({ idx: o.idx, failed: o.failed })), ...pending.map((idx) => ({ idx, failed: undefined }))]
  if (anchors.length === 0) {
    const first = randomPicks(ctx, 1)
    if (first.length === 0 || count === 1) return first
    return [...first, ...spaceFillingPicks({ ...ctx, pending: first }, count - 1, candidates)]
  }

  // The candidate set: every free configuration when few, else a random sample of them.
  let pool: Indices[] = []
  if (space.finite && space.finite.length - taken.size <= candidates) pool = space.finite.filter((idx) => !taken.has(space.key(idx)))
  else {
    const excl = new Set(taken)
    for (let tries = 0; pool.length < candidates && tries < candidates * 2; tries++) {
      const idx = space.sample(rng, excl)
      if (!idx) break
      excl.add(space.key(idx))
      pool.push(idx)
    }
  }
  if (pool.length === 0) return []
  const enc = new Float64Array(pool.length * d)
  pool.forEach((idx, i) => space.encode(idx, enc, i * d))
  const a = new Float64Array(anchors.length * d)
  anchors.forEach((x, i) => space.encode(x.idx, a, i * d))

  // Nearest anchor distance per candidate, and the feasibility vote (Beta(1, 1) prior) over the
  // told outcomes. The vote's lengthscale is a fixed fraction of the cube's diagonal: no model
  // has been fitted yet, and a vote as wide as the space would say nothing about where.
  const ls = 0.35 * Math.sqrt(d)
  const nearest = new Float64Array(pool.length).fill(Infinity)
  const okW = new Float64Array(pool.length).fill(1)
  const allW = new Float64Array(pool.length).fill(2)
  const addAnchor = (src: Float64Array, at: number, failed: boolean | undefined) => {
    for (let q = 0; q < pool.length; q++) {
      const s = dist2(enc, q * d, src, at, d)
      if (s < nearest[q]!) nearest[q] = s
      if (failed === undefined) continue
      const w = similarity(s, ls)
      allW[q]! += w
      if (!failed) okW[q]! += w
    }
  }
  anchors.forEach((x, i) => addAnchor(a, i * d, x.failed))

  const out: Indices[] = []
  const used = new Set<number>()
  while (out.length < count && used.size < pool.length) {
    let arg = -1
    let top = -Infinity
    for (let q = 0; q < pool.length; q++) {
      if (used.has(q)) continue
      // Squared feasibility: an even vote halves the score, a region that mostly failed is left
      // alone unless nothing else is far from what was seen.
      const p = okW[q]! / allW[q]!
      const score = Math.sqrt(nearest[q]!) * p * p
      if (score > top) (top = score), (arg = q)
    }
    if (arg < 0) break
    used.add(arg)
    taken.add(space.key(pool[arg]!))
    out.push(pool[arg]!)
    addAnchor(enc, arg * d, undefined)
  }
  return out
}

/**
 * Indices (into the n observations) of at most `cap` to fit the GP on; all of them when n ≤ cap.
 * `y` is the standardised objective (failures already at the worst value), `failed` marks
 * failures, `scale` the per-column inverse lengthscales for the distance to the incumbent.
 */
export function modelSubset(x: Float64Array, y: Float64Array, failed: readonly boolean[], n: number, d: number, cap: number, scale: Float64Array): number[] {
  if (n <= cap) return Array.from({ length: n }, (_, i) => i)
  let inc = -1
  for (let i = 0; i < n; i++) if (!failed[i] && (inc < 0 || y[i]! < y[inc]!)) inc = i
  if (inc < 0) inc = n - 1
  const keep = new Set<number>()
  const byDistance = Array.from({ length: n }, (_, i) => i)
  const dist = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    let s = 0
    for (let c = 0; c < d; c++) {
      const t = (x[i * d + c]! - x[inc * d + c]!) * scale[c]!
      s += t * t
    }
    dist[i] = s
  }
  byDistance.sort((p, q) => dist[p]! - dist[q]! || p - q)
  for (const i of byDistance.slice(0, Math.floor(cap / 2))) keep.add(i)
  const byValue = Array.from({ length: n }, (_, i) => i).filter((i) => !failed[i]).sort((p, q) => y[p]! - y[q]! || p - q)
  for (const i of byValue) {
    if (keep.size >= Math.floor((3 * cap) / 4)) break
    keep.add(i)
  }
  // The rest: evenly strided over observation order (deterministic, so a resumed search refits
  // on the same subset).
  const rest = Array.from({ length: n }, (_, i) => i).filter((i) => !keep.has(i))
  const room = cap - keep.size
  for (let k = 0; k < room && rest.length; k++) keep.add(rest[Math.floor((k * rest.length) / room)]!)
  return [...keep].sort((p, q) => p - q)
}
