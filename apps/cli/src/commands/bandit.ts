/**
 * `kerneltune bandit simulate`: runs a bandit policy on a simulated problem with known arm means
 * (Bernoulli or Gaussian rewards, optionally switching means at a step) and reports the true
 * cumulative regret, so policies and their settings can be compared before serving.
 */
import { writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { POLICY_KINDS, logLogSlope, simulate, type PolicyInput, type SimulationProblem } from '@kerneltune/bandit'
import { usageError } from '../cli/args.ts'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, table } from '../cli/output.ts'

function numbers(flag: string, raw: readonly string[] | undefined): number[] | undefined {
  if (raw === undefined) return undefined
  const xs = raw.map(Number)
  if (xs.length === 0 || xs.some((x) => !Number.isFinite(x))) throw usageError(`--${flag} expects comma-separated numbers, got "${raw.join(',')}"`)
  return xs
}

const simulateCommand = defineCommand({
  name: 'simulate',
  summary: 'Simulate a bandit policy on arms with known means and report its true cumulative regret.',
  description: 'Regret is Σ (best true mean − true mean of the chosen arm) over the steps. With --drift-at, the arm means switch to --drift-means at that step, which is where the discounted and sliding-window policies should recover and the stationary ones may not. Rewards and policy draws come from seeded PRNGs: the same flags give the same result.',
  flags: [
    { name: 'policy', type: 'string', choices: [...POLICY_KINDS], default: 'ucb1', description: 'Selection policy.' },
    { name: 'means', type: 'list', valueName: 'M1,M2,...', default: ['0.9', '0.8', '0.7', '0.5', '0.3'], description: 'True mean reward of each arm.' },
    { name: 'reward', type: 'string', choices: ['bernoulli', 'gaussian'], default: 'bernoulli', description: 'Reward distribution.' },
    { name: 'sd', type: 'number', min: 0, default: 0.1, description: 'Standard deviation of Gaussian rewards.' },
    { name: 'steps', type: 'integer', min: 1, max: 10_000_000, default: 10_000, description: 'Number of pulls.' },
    { name: 'seed', type: 'integer', default: 1, description: 'Seed of the policy (the reward stream uses seed + 1).' },
    { name: 'drift-at', type: 'integer', min: 1, description: 'Step at which the means change.' },
    { name: 'drift-means', type: 'list', valueName: 'M1,M2,...', description: 'Means after --drift-at (default: the --means reversed).' },
    { name: 'c', type: 'number', min: 0, description: 'UCB exploration weight (ucb1 default 1; drift variants 0.55).' },
    { name: 'gamma', type: 'number', min: 0.000001, max: 0.999999, description: 'Discount factor of the discounted-* policies.' },
    { name: 'window', type: 'integer', min: 1, description: 'Window of sliding-window-ucb.' },
    { name: 'epsilon', type: 'number', min: 0, max: 1, description: 'Exploration probability of epsilon-greedy (default 0.1).' },
    { name: 'decay', type: 'boolean', description: 'epsilon-greedy: ε_t = min(ε, K/t).' },
    { name: 'likelihood', type: 'string', choices: ['beta', 'gaussian'], description: 'Thompson posterior (default beta for Bernoulli rewards, gaussian for Gaussian ones).' },
    { name: 'save', type: 'string', valueName: 'FILE', description: 'Write the final bandit state (JSON, resumable with Bandit.fromJSON).' },
  ],
  jsonOutput: '{ "simulated": true, "policy": Policy, "problem": { reward, means, changes?, sd? }, "steps": number, "seed": number, "regret": number, "regretPerStep": number, "logLogSlope": number, "curve": [{ step, regret }], "pulls": number[], "bestArm": string (the bandit\'s), "trueBestArm": number (at the last step), "explorationRate": number, "estimatedRegret": number }',
  examples: [
    'kerneltune bandit simulate --policy thompson --means 0.9,0.8,0.5 --steps 10000',
    'kerneltune bandit simulate --policy sliding-window-ucb --means 0.8,0.5,0.3 --drift-at 5000 --drift-means 0.8,0.5,0.95 --json',
    'kerneltune bandit simulate --policy thompson --reward gaussian --means 1200,1500,900 --sd 80',
  ],
  async run(ctx) {
    const f = ctx.flags
    const means = numbers('means', f.means)!
    const problem: SimulationProblem = { reward: f.reward as 'bernoulli' | 'gaussian', means }
    if (f.reward === 'gaussian') problem.sd = f.sd
    if (f.driftAt !== undefined) {
      const after = numbers('drift-means', f.driftMeans) ?? [...means].reverse()
      if (after.length !== means.length) throw usageError(`--drift-means needs ${means.length} values (one per arm), got ${after.length}`)
      problem.changes = [{ from: f.driftAt, means: after }]
    } else if (f.driftMeans !== undefined) {
      throw usageError('--drift-means needs --drift-at STEP')
    }
    const likelihood = f.policy === 'thompson' || f.policy === 'discounted-thompson' ? (f.likelihood ?? (f.reward === 'gaussian' ? 'gaussian' : 'beta')) : undefined
    // The policy's schema keeps its own options (defaulting those not given) and drops the others'.
    const policy = { kind: f.policy, c: f.c, gamma: f.gamma, window: f.window, epsilon: f.epsilon, decay: f.decay, likelihood } as PolicyInput
    const seed = f.seed ?? 1
    const r = simulate({ problem, bandit: { policy, seed }, steps: f.steps ?? 10_000, seed: seed + 1 })
    const b = r.bandit
    if (f.save !== undefined) await writeFile(resolve(ctx.io.cwd, f.save), JSON.stringify(b.toJSON(), null, 2) + '\n')
    const slope = logLogSlope(r.curve.filter((p) => p.step >= Math.min(100, r.steps)))
    const out = {
      simulated: true, policy: b.policy, problem, steps: r.steps, seed, regret: r.regret, regretPerStep: r.regret / r.steps,
      logLogSlope: slope, curve: r.curve, pulls: r.pulls, bestArm: b.bestArm(), trueBestArm: r.bestArmAtEnd,
      explorationRate: b.explorationRate(), estimatedRegret: b.estimatedRegret(),
    }
    if (ctx.json) return void ctx.printJson(out)
    ctx.io.stdout('Simulated problem (known means; not a measurement)\n\n')
    ctx.io.stdout(keyValues([
      ['policy', JSON.stringify(b.policy)],
      ['problem', `${problem.reward} rewards, means ${means.join(', ')}${problem.changes ? `; from step ${problem.changes[0]!.from}: ${problem.changes[0]!.means.join(', ')}` : ''}`],
      ['steps', r.steps],
      ['cumulative regret', `${fmt(r.regret, 2)} (${fmt(r.regret / r.steps, 4)} per step)`],
      ['log-log slope', `${fmt(slope, 2)} (1 = linear growth; below 1 = sublinear)`],
      ['best arm', `bandit: ${b.bestArm()}; true: ${r.bestArmAtEnd}`],
      ['exploration rate', fmt(b.explorationRate(), 3)],
    ]))
    ctx.io.stdout('\n' + table(b.report().map((a) => [a.arm, a.pulls, fmt(a.mean, 3), fmt(a.currentMean, 3)]), ['arm', 'pulls', 'mean', 'current mean']))
    if (f.save !== undefined) ctx.io.stdout(`\nSaved the bandit state to ${f.save}\n`)
  },
})

export const banditCommand = defineCommand({
  name: 'bandit',
  summary: 'Kernel selection while serving: simulate bandit policies (UCB1, Thompson, epsilon-greedy, drift variants).',
  subcommands: [simulateCommand],
})
