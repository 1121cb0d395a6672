/** The flags of `kerneltune run create` (and the objectives `tune start` shares), read into compose's run request. */
import { KerneltuneError } from '@kerneltune/core'
import { DEFAULT_SERVING_ENGINE, ENGINE_NAMES } from '@kerneltune/compose'
import { buildRunRequest as buildRequest, type RunRequestFields } from '@kerneltune/compose/node'
import { objectivesRecord } from '@kerneltune/serving'
import type { RunRequestInput } from '@kerneltune/tuner'
import { OBJECTIVE_FLAGS, objectivesFromFlags } from './shared/objectives-flags.ts'

/** --slo and --objective as bench serve and sweep take them (serving's one parser). */
export const RUN_OBJECTIVE_FLAGS = [OBJECTIVE_FLAGS[0], OBJECTIVE_FLAGS[1]] as const

export const RUN_REQUEST_FLAGS = [
  { name: 'engine', type: 'string', choices: ENGINE_NAMES, description: 'Engine plugin (the built-in engines, as compose registers them); overrides the file' },
  { name: 'backend', type: 'string', description: 'Measurement backend: analytical, gpu-kernels, an engine\'s in-process backend (named as the engine), server (the engine\'s server per combination under concurrent load); overrides the file', valueName: 'NAME' },
  { name: 'gguf', type: 'string', description: `GGUF model to measure (sets engine and backend ${DEFAULT_SERVING_ENGINE}, reads the model spec, detects the hardware)`, valueName: 'FILE' },
  { name: 'mode', type: 'string', choices: ['quick', 'exhaustive'], description: 'Enumeration mode' },
  { name: 'reps', type: 'integer', description: 'Repetitions per combination', min: 2, max: 100 },
  { name: 'warmups', type: 'integer', description: 'Warm-up repetitions', min: 0, max: 100 },
  { name: 'restrict', type: 'string', description: 'JSON {dimension: [values]}: keep only these values', valueName: 'JSON' },
  { name: 'max-combos', type: 'integer', description: 'Refuse runs with more combinations', min: 1, max: 5000 },
  { name: 'prompt-tokens', type: 'integer', description: 'Workload prompt tokens', min: 1 },
  { name: 'gen-tokens', type: 'integer', description: 'Workload generated tokens', min: 2 },
  { name: 'registry-kernels', type: 'boolean', description: 'Tier 3: the backend (gpu-kernels) also measures the approved registry kernel of each family it runs, next to its tuned kernel (no result cache)' },
  { name: 'design', type: 'string', choices: ['sequential', 'interleaved'], description: 'sequential: the baseline first, then each combination with early stopping. interleaved: every combination once per round in a seeded random order beside the baseline and an A/A copy of it, compared with the baseline of the same rounds (the whole run on one device, one worker)' },
  { name: 'rounds', type: 'integer', description: 'Interleaved: rounds (default 8; the sign-flip test needs 7 to decide)', min: 2, max: 1000 },
  { name: 'seed', type: 'integer', description: 'Interleaved: seed of the round orders (default 1)', min: 0 },
  { name: 'test', type: 'string', choices: ['sign-flip', 'paired', 'blocked'], description: 'Interleaved: how a combination is compared with the baseline of the same rounds (default sign-flip)' },
  ...RUN_OBJECTIVE_FLAGS,
] as const

/** The one positional id a subcommand needs, or a usage error naming it. */
export function requireId(positionals: readonly string[], name: string): string {
  if (positionals.length !== 1 || !positionals[0]) throw new KerneltuneError('INVALID_INPUT', `expected one ${name}, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}`)
  return positionals[0]
}

/** The request fields of --slo/--objective (name → ms, and the objective resolved); none without them. Bad values are usage errors listing the accepted names. */
export const objectiveFields = (f: { slo?: string | undefined; objective?: string | undefined }): { slo?: Record<string, number>; objective?: string } => objectivesRecord(objectivesFromFlags(f))

/** The request REQUEST.json and the flags make, checked with the server's schema (compose builds it). */
export const buildRunRequest = (file: string | undefined, { slo, objective, ...f }: Omit<RunRequestFields, 'slo' | 'objective'> & { slo?: string; objective?: string }, cwd: string): Promise<RunRequestInput> =>
  buildRequest(file, { ...f, ...objectiveFields({ slo, objective }) }, cwd)
