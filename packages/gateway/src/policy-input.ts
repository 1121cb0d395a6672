/**
 * The bandit policy of a gateway from its kind and the parameters a person gave: a parameter that
 * another policy takes is refused (it would be silently ignored), naming the flag it came from.
 */
import type { PolicyInput, PolicyKind } from '@kerneltune/bandit'
import { KerneltuneError } from '@kerneltune/core'

export interface PolicyParams {
  readonly gamma?: number | undefined
  readonly policyWindow?: number | undefined
  readonly epsilon?: number | undefined
}

export function policyInput(kind: PolicyKind, f: PolicyParams): PolicyInput {
  const refuse = (flag: string, forKinds: string) => new KerneltuneError('INVALID_INPUT', `--${flag} is for ${forKinds}, not ${kind}`)
  if (f.gamma !== undefined && kind !== 'discounted-ucb' && kind !== 'discounted-thompson') throw refuse('gamma', 'discounted-ucb and discounted-thompson')
  if (f.policyWindow !== undefined && kind !== 'sliding-window-ucb') throw refuse('policy-window', 'sliding-window-ucb')
  if (f.epsilon !== undefined && kind !== 'epsilon-greedy') throw refuse('epsilon', 'epsilon-greedy')
  switch (kind) {
    case 'discounted-ucb':
    case 'discounted-thompson':
      return { kind, ...(f.gamma === undefined ? {} : { gamma: f.gamma }) }
    case 'sliding-window-ucb':
      return { kind, ...(f.policyWindow === undefined ? {} : { window: f.policyWindow }) }
    case 'epsilon-greedy':
      return { kind, ...(f.epsilon === undefined ? {} : { epsilon: f.epsilon }) }
    default:
      return { kind }
  }
}
