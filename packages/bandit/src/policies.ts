/**
 * The selection policies, as plain data (so a bandit's policy is saved with its state).
 * Defaults are the textbook ones; `c` is the weight of the UCB exploration bonus
 * `c·sqrt(2·ln N / n)` (c = 1 is Auer et al.'s UCB1; trueno's KernelBandit uses c = 2).
 */
import { z } from 'zod'

/**
 * Bonus weight of the drift variants: Garivier & Moulines (2011) use a bonus sqrt(ξ·ln N / n) with
 * ξ = 0.6 in their experiments, which is c = sqrt(ξ/2) ≈ 0.55 in this package's c·sqrt(2·ln N / n).
 */
export const DRIFT_C = 0.55

export const LIKELIHOODS = ['beta', 'gaussian'] as const
export type Likelihood = (typeof LIKELIHOODS)[number]

type LikelihoodSchema = z.ZodDefault<z.ZodEnum<{ [L in Likelihood]: L }>>
// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const PolicySchema: z.ZodDiscriminatedUnion<[
  z.ZodObject<{ kind: z.ZodLiteral<'ucb1'>; c: z.ZodDefault<z.ZodNumber> }>,
  z.ZodObject<{
    kind: z.ZodLiteral<'thompson'>
    likelihood: LikelihoodSchema
    priorAlpha: z.ZodDefault<z.ZodNumber>
    priorBeta: z.ZodDefault<z.ZodNumber>
  }>,
  z.ZodObject<{ kind: z.ZodLiteral<'epsilon-greedy'>; epsilon: z.ZodDefault<z.ZodNumber>; decay: z.ZodDefault<z.ZodBoolean> }>,
  z.ZodObject<{ kind: z.ZodLiteral<'discounted-ucb'>; gamma: z.ZodDefault<z.ZodNumber>; c: z.ZodDefault<z.ZodNumber> }>,
  z.ZodObject<{ kind: z.ZodLiteral<'sliding-window-ucb'>; window: z.ZodDefault<z.ZodNumber>; c: z.ZodDefault<z.ZodNumber> }>,
  z.ZodObject<{
    kind: z.ZodLiteral<'discounted-thompson'>
    gamma: z.ZodDefault<z.ZodNumber>
    likelihood: LikelihoodSchema
    priorAlpha: z.ZodDefault<z.ZodNumber>
    priorBeta: z.ZodDefault<z.ZodNumber>
  }>,
], 'kind'> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ucb1'), c: z.number().nonnegative().default(1) }),
  z.object({
    kind: z.literal('thompson'),
    /** beta: rewards in [0,1] (fractional Beta update). gaussian: every real reward. */
    likelihood: z.enum(LIKELIHOODS).default('beta'),
    priorAlpha: z.number().positive().default(1),
    priorBeta: z.number().positive().default(1),
  }),
  z.object({
    kind: z.literal('epsilon-greedy'),
    epsilon: z.number().min(0).max(1).default(0.1),
    /** When true, ε_t = min(ε, K/t) (Auer et al. 2002's decaying schedule with c/d² = 1). */
    decay: z.boolean().default(false),
  }),
  z.object({
    kind: z.literal('discounted-ucb'),
    /** Every step multiplies all past statistics by gamma: memory of about 1/(1-gamma) steps. */
    gamma: z.number().gt(0).lt(1).default(0.998),
    c: z.number().nonnegative().default(DRIFT_C),
  }),
  z.object({
    kind: z.literal('sliding-window-ucb'),
    /** Only the last `window` rewards count. */
    window: z.number().int().min(1).default(1000),
    c: z.number().nonnegative().default(DRIFT_C),
  }),
  z.object({
    kind: z.literal('discounted-thompson'),
    gamma: z.number().gt(0).lt(1).default(0.995),
    likelihood: z.enum(LIKELIHOODS).default('beta'),
    priorAlpha: z.number().positive().default(1),
    priorBeta: z.number().positive().default(1),
  }),
])
export type Policy = z.output<typeof PolicySchema>
export type PolicyInput = z.input<typeof PolicySchema>
export type PolicyKind = Policy['kind']

export const POLICY_KINDS = ['ucb1', 'thompson', 'epsilon-greedy', 'discounted-ucb', 'sliding-window-ucb', 'discounted-thompson'] as const satisfies readonly PolicyKind[]

/** True for the policies meant for rewards that drift over time. */
export function isDriftPolicy(p: Policy): boolean {
  return p.kind === 'discounted-ucb' || p.kind === 'sliding-window-ucb' || p.kind === 'discounted-thompson'
}
