/**
 * Which seed fast-check uses in the tests (applied by fast-check-setup.ts, kept apart so tests
 * can check this logic without the side effect).
 *
 * KERNELTUNE_FC_SEED unset: the fixed DEFAULT_FC_SEED (CI and everyone else see the same cases).
 * KERNELTUNE_FC_SEED=<integer>: that seed (to replay a failure). KERNELTUNE_FC_SEED=random: a
 * fresh seed, printed so the run can be replayed.
 */
export const DEFAULT_FC_SEED = 20261123

export type Env = Record<string, string | undefined>

/** The seed a test process uses, or throws when KERNELTUNE_FC_SEED is neither a number nor `random`. */
export function resolveFastCheckSeed(env: Env, random: () => number = Math.random): { seed: number, source: 'default' | 'env' | 'random' } {
  const raw = env.KERNELTUNE_FC_SEED?.trim()
  if (!raw) return { seed: DEFAULT_FC_SEED, source: 'default' }
  if (raw === 'random') return { seed: Math.floor(random() * 0x7fffffff), source: 'random' }
  if (!/^-?\d+$/.test(raw)) {
    throw new Error(`KERNELTUNE_FC_SEED must be an integer or 'random', got '${raw}'; unset it to use the fixed seed ${DEFAULT_FC_SEED}`)
  }
  return { seed: Number(raw) | 0, source: 'env' }
}

