/**
 * The physics model: time per step = Σ multiplier × term (physics-terms.ts), throughput = tokens
 * per step ÷ time. Each multiplier is exp(base + Σ effects of the row's hardware class, vendor and
 * weight format), so it stays positive and an unseen class falls back to its vendor and the base.
 * Fitted by damped Gauss-Newton on log(time) (relative error, like MAPE), with a ridge penalty on
 * the effects (shrinking a class with few rows to the rest) and a weak prior on the bases (so a
 * term the data cannot see, like the per-layer cost of tiny models, keeps a physical value).
 */
import { z } from 'zod'
import { KerneltuneError } from '@kerneltune/core'
import { dampedStep, type DampedState } from './damped-step.ts'
import { PHYSICS_TERMS, PRIOR, baseName, effectCoef, effectKeys, effectName, effectOptionsOf, stepTerms, type EffectOptions, type PhysicsTerm } from './physics-terms.ts'
import type { ThroughputQuery } from './query.ts'

// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const PhysicsStateSchema: z.ZodObject<{
  params: z.ZodRecord<z.ZodString, z.ZodNumber>
  lambda: z.ZodNumber
  priorPrecision: z.ZodNumber
  groupBalance: z.ZodNumber
  iterations: z.ZodNumber
  mmKernels: z.ZodOptional<z.ZodBoolean>
  int8Kernels: z.ZodOptional<z.ZodBoolean>
  moePrefill: z.ZodOptional<z.ZodBoolean>
  currentClasses: z.ZodOptional<z.ZodEnum<{ decode: 'decode'; memory: 'memory' }>>
}> = z.object({
  /** Log multipliers by name ("decode.mem", "decode.mem|class:cpu", ...). */
  params: z.record(z.string(), z.number()),
  lambda: z.number().nonnegative(),
  priorPrecision: z.number().nonnegative(),
  groupBalance: z.number().min(0).max(1),
  iterations: z.number().int().nonnegative(),
  /** The prefill kernel-family effect (physics-terms.ts EffectOptions); absent: off. */
  mmKernels: z.boolean().optional(),
  /** Quantized GPU prefill at the int8 rate with a per-backend binding exponent (physics-terms.ts EffectOptions); absent: off. */
  int8Kernels: z.boolean().optional(),
  /** The mixture-of-experts prefill effect (physics-terms.ts EffectOptions.moePrefill); absent: off. */
  moePrefill: z.boolean().optional(),
  /** Class effects learned apart for current builds, on which terms (physics-terms.ts EffectOptions.currentClasses); absent: one per class. */
  currentClasses: z.enum(['decode', 'memory']).optional(),
})
export type PhysicsState = z.output<typeof PhysicsStateSchema>

/** Fit options, and the optional effects of physics-terms.ts (`EffectOptions`) the fitted state carries. */
export interface PhysicsOptions extends EffectOptions {
  /** Ridge precision on the class/vendor/format effects (default 3). */
  lambda?: number
  /** Precision of the prior on the base multipliers (default 0.1: a weak pull). */
  priorPrecision?: number
  /** 0: every row weighs the same; 1: every hardware weighs the same in total (default 0.5). */
  groupBalance?: number
  maxIterations?: number
  /** Stop once a kept step lowers the objective by less than this share of it (default 1e-10). */
  tolerance?: number
}

export interface PhysicsRow {
  query: ThroughputQuery
  measured: number
  group?: string
}

interface Compiled {
  tokens: number
  /** Per term with a nonzero time: its seconds at multiplier 1, its parameter indices and their covariates (effectCoef). */
  parts: { phi: number; idx: number[]; coef: number[] }[]
  /** The row's distinct parameter indices (first-seen order), and each part's positions in it. */
  uniq?: Int32Array
  pos?: Int32Array[]
}

/** Adds the row's distinct parameters and the part positions (fit only: the gradient loop reads them). */
function withPositions(c: Compiled): Compiled {
  const order: number[] = []
  const at = new Map<number, number>()
  const pos = c.parts.map((p) => Int32Array.from(p.idx, (j) => {
    let k = at.get(j)
    if (k === undefined) {
      k = order.length
      order.push(j)
      at.set(j, k)
    }
    return k
  }))
  return { ...c, uniq: Int32Array.from(order), pos }
}

/** The parameters whose weighted sum is a term's log multiplier for this query: its base and its effects, each with its covariate. */
const multiplierTerms = (q: ThroughputQuery, term: PhysicsTerm, eff: EffectOptions): { name: string; coef: number }[] =>
  [{ name: baseName(q, term), coef: 1 }, ...effectKeys(q, term, eff).map((key) => ({ name: effectName(q, term, key), coef: effectCoef(q, key) }))]

function compile(q: ThroughputQuery, index: (name: string) => number | undefined, eff: EffectOptions): Compiled {
  const { tokens, phi } = stepTerms(q, eff)
  const parts: Compiled['parts'] = []
  PHYSICS_TERMS.forEach((term, k) => {
    if (!(phi[k]! > 0)) return
    const known = multiplierTerms(q, term, eff).map((m) => ({ i: index(m.name), coef: m.coef })).filter((m): m is { i: number; coef: number } => m.i !== undefined)
    parts.push({ phi: phi[k]!, idx: known.map((m) => m.i), coef: known.map((m) => m.coef) })
  })
  return { tokens, parts }
}

function stepTime(c: Compiled, theta: ArrayLike<number>): { t: number; contrib: number[] } {
  const contrib = c.parts.map((p) => p.phi * Math.exp(p.idx.reduce((s, i, a) => s + theta[i]! * p.coef[a]!, 0)))
  return { t: contrib.reduce((a, b) => a + b, 0), contrib }
}

/** Raw (unclamped) tokens/s of a query under a fitted state. */
export function predictPhysics(state: PhysicsState, q: ThroughputQuery): number {
  const { tokens, seconds } = physicsBreakdown(state, q)
  return tokens / Object.values(seconds).reduce((a, b) => a + b, 0)
}

/** The predicted step time split by term (seconds), and the tokens the step yields. */
export function physicsBreakdown(state: PhysicsState, q: ThroughputQuery): { tokens: number; seconds: Record<PhysicsTerm, number> } {
  const { tokens, phi } = stepTerms(q, state)
  const seconds = {} as Record<PhysicsTerm, number>
  PHYSICS_TERMS.forEach((term, k) => {
    seconds[term] = phi[k]! * Math.exp(multiplierTerms(q, term, state).reduce((s, m) => s + (state.params[m.name] ?? 0) * m.coef, 0))
  })
  return { tokens, seconds }
}

/**
 * The effect keys a query needs that the fitted state never learned (no training row had them):
 * its vendor, hardware class, weight format or backend build. Such an effect weighs nothing, so the
 * prediction falls back to what the other rows say: an extrapolation, which `predict` reports.
 */
export function unseenEffects(state: PhysicsState, q: ThroughputQuery): string[] {
  const { phi } = stepTerms(q, state)
  const out = new Set<string>()
  PHYSICS_TERMS.forEach((term, k) => {
    if (!(phi[k]! > 0)) return
    for (const key of effectKeys(q, term, state)) if (state.params[effectName(q, term, key)] === undefined) out.add(key)
  })
  return [...out]
}

/** Fits the multipliers on measured rows (deterministic: fixed start, fixed iteration rule). */
export function fitPhysics(rows: readonly PhysicsRow[], opts: PhysicsOptions = {}): PhysicsState {
  if (rows.length < 10) throw new KerneltuneError('INSUFFICIENT_DATA', `Insufficient training data: ${rows.length} samples (need >= 10)`)
  const lambda = opts.lambda ?? 3
  const priorPrecision = opts.priorPrecision ?? 0.1
  const groupBalance = opts.groupBalance ?? 0.5
  const names: string[] = []
  const pos = new Map<string, number>()
  const prior: number[] = []
  const precision: number[] = []
  const index = (n: string) => {
    let i = pos.get(n)
    if (i === undefined) {
      i = names.length
      names.push(n)
      pos.set(n, i)
      const base = !n.includes('|')
      prior.push(base ? Math.log(PRIOR[n.split('.')[1]!.split('@')[0] as keyof typeof PRIOR]) : 0)
      precision.push(base ? priorPrecision : lambda)
    }
    return i
  }
  const eff = effectOptionsOf(opts)
  const compiled = rows.map((r) => withPositions(compile(r.query, index, eff)))
  const y = rows.map((r, i) => Math.log(compiled[i]!.tokens / r.measured))
  // Row weights: a blend of equal rows and equal hardware, normalised to a mean of 1, so the
  // GB10 and M2 Ultra sweeps (over half the rows) do not set every shared multiplier alone.
  const counts = new Map<string, number>()
  for (const r of rows) counts.set(r.group ?? '', (counts.get(r.group ?? '') ?? 0) + 1)
  const raw = rows.map((r) => (1 - groupBalance) + (groupBalance * rows.length) / (counts.size * counts.get(r.group ?? '')!))
  const mean = raw.reduce((a, b) => a + b, 0) / raw.length
  const w = raw.map((x) => x / mean)
  const P = names.length
  const theta = Float64Array.from(prior)
  const objective = (th: Float64Array) => {
    let s = 0
    compiled.forEach((c, i) => (s += w[i]! * (Math.log(stepTime(c, th).t) - y[i]!) ** 2))
    for (let j = 0; j < P; j++) s += precision[j]! * (th[j]! - prior[j]!) ** 2
    return s
  }
  const state: DampedState = { current: objective(theta), damping: 1e-3 }
  let iterations = 0
  for (let it = 0; it < (opts.maxIterations ?? 200); it++) {
    iterations = it + 1
    const A = new Float64Array(P * P)
    const g = new Float64Array(P)
    compiled.forEach((c, i) => {
      const { t, contrib } = stepTime(c, theta)
      const r = Math.log(t) - y[i]!
      // d log t / d θ_j = Σ over the parts using θ_j of contrib ÷ t (typed arrays over the row's own
      // parameters: the fit's hot loop, in the same order of additions as a map would give).
      const uniq = c.uniq!
      const grad = new Float64Array(uniq.length)
      c.pos!.forEach((p, k) => { for (let a = 0; a < p.length; a++) grad[p[a]!]! += (contrib[k]! * c.parts[k]!.coef[a]!) / t })
      const wi = w[i]!
      for (let a = 0; a < uniq.length; a++) {
        const j = uniq[a]!
        const gj = grad[a]!
        g[j]! += wi * r * gj
        const row = j * P
        for (let b = 0; b < uniq.length; b++) {
          const l = uniq[b]!
          if (l >= j) A[row + l]! += wi * gj * grad[b]!
        }
      }
    })
    for (let j = 0; j < P; j++) {
      g[j]! += precision[j]! * (theta[j]! - prior[j]!)
      A[j * P + j] = A[j * P + j]! * (1 + state.damping) + precision[j]! + 1e-12
      for (let l = 0; l < j; l++) A[j * P + l] = A[l * P + j]! // the upper triangle was accumulated
    }
    const gain = dampedStep(theta, Array.from({ length: P }, (_, j) => Array.from(A.subarray(j * P, (j + 1) * P))), g, objective, state)
    if (gain === undefined || (gain > 0 && gain < (opts.tolerance ?? 1e-10) * (1 + state.current))) break
  }
  const params: Record<string, number> = {}
  names.forEach((n, j) => (params[n] = theta[j]!))
  return { params, lambda, priorPrecision, groupBalance, iterations, ...eff }
}
