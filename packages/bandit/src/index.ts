/**
 * @module @kerneltune/bandit
 * Multi-armed bandits for choosing a kernel (or any option) while serving: UCB1, Thompson
 * sampling that really samples (Beta or Gaussian posteriors, from a seeded serialisable PRNG),
 * epsilon-greedy, and discounted / sliding-window variants for rewards that drift. Any set of
 * named arms; the full state saves and resumes exactly.
 *
 * @example
 * ```ts
 * import { createBandit, Bandit } from '@kerneltune/bandit'
 * const b = createBandit({ arms: ['tiled', 'vectorized', 'batched'], policy: { kind: 'thompson' }, seed: 7 })
 * for (let i = 0; i < 100; i++) {
 *   const arm = b.select()
 *   b.update(arm, arm === 'batched' ? 0.9 : 0.5) // reward in [0, 1], e.g. tok/s ÷ roofline
 * }
 * console.log(b.bestArm(), b.explorationRate(), b.estimatedRegret())
 * const resumed = Bandit.fromJSON(JSON.parse(JSON.stringify(b.toJSON())))
 * ```
 */
export {
  BANDIT_FORMAT,
  BANDIT_VERSION,
  Bandit,
  BanditStateSchema,
  createBandit,
  type ArmReport,
  type ArmStats,
  type BanditOptions,
  type BanditState,
} from './bandit.ts'
export {
  LIKELIHOODS,
  POLICY_KINDS,
  PolicySchema,
  isDriftPolicy,
  type Likelihood,
  type Policy,
  type PolicyInput,
  type PolicyKind,
} from './policies.ts'
export { Prng, PrngStateSchema, type PrngState } from './prng.ts'
export {
  KERNEL_BANDIT_ARMS,
  defaultCheckpoints,
  kernelBandit,
  logLogSlope,
  simulate,
  type RewardPhase,
  type SimulationOptions,
  type SimulationProblem,
  type SimulationResult,
} from './simulate.ts'
