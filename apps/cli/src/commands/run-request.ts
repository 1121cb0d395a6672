/**
 * Builds a run request for `kerneltune run create` from an optional REQUEST.json and flags. With
 * `--gguf FILE` the request measures that model with llama.cpp (engine and backend `llamacpp`):
 * the model spec is read from the GGUF, the hardware is detected on this machine, and unless
 * `--restrict` says otherwise the space is the quick llama.cpp sweep space (threads × flash_attn
 * × V cache type) with every other dimension at llama-server's default.
 */
import { readFileSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { cpus } from 'node:os'
import { resolve } from 'node:path'
import { KerneltuneError } from '@kerneltune/core'
import { ENGINE_NAMES } from '@kerneltune/compose'
import { LLAMACPP_DIMENSIONS, LLAMACPP_SERVER_DIMENSIONS, servingSweepSpace, sweepSpace } from '@kerneltune/engines-llamacpp'
import { objectivesRecord } from '@kerneltune/serving'
import { OBJECTIVE_FLAGS, objectivesFromFlags } from './shared/objectives-flags.ts'

/** --slo and --objective as bench serve and sweep take them (serving's one parser). */
export const RUN_OBJECTIVE_FLAGS = [OBJECTIVE_FLAGS[0], OBJECTIVE_FLAGS[1]] as const

export const RUN_REQUEST_FLAGS = [
  { name: 'engine', type: 'string', choices: ENGINE_NAMES, description: 'Engine plugin (the built-in engines, as compose registers them); overrides the file' },
  { name: 'backend', type: 'string', description: 'Measurement backend: analytical, gpu-kernels, llamacpp (in-process), server (llama-server per combination under concurrent load); overrides the file', valueName: 'NAME' },
  { name: 'gguf', type: 'string', description: 'GGUF model to measure with llama.cpp (sets engine and backend llamacpp, reads the model spec, detects the hardware)', valueName: 'FILE' },
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

export interface RunRequestFlags {
  engine?: string; backend?: string; gguf?: string; mode?: string; reps?: number; warmups?: number
  restrict?: string; maxCombos?: number; promptTokens?: number; genTokens?: number; registryKernels?: boolean
  design?: 'sequential' | 'interleaved'; rounds?: number; seed?: number; test?: 'sign-flip' | 'paired' | 'blocked'
  slo?: string; objective?: string
}

/** The request fields of --slo/--objective (name → ms, and the objective resolved); none without them. Bad values are usage errors listing the accepted names. */
export function objectiveFields(f: { slo?: string | undefined; objective?: string | undefined }): { slo?: Record<string, number>; objective?: string } {
  const o = objectivesFromFlags(f)
  return objectivesRecord(o)
}

const parseJson = (text: string, what: string): Record<string, unknown> => {
  let v: unknown
  try { v = JSON.parse(text) } catch (e) { throw new KerneltuneError('INVALID_INPUT', `${what} is not JSON: ${(e as Error).message}`) }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new KerneltuneError('INVALID_INPUT', `${what} must be a JSON object`)
  return v as Record<string, unknown>
}

/**
 * A llama.cpp space with every dimension it does not name (the translator's and llama-server's
 * slots and continuous batching) pinned to llama-server's default; with no `given` space, the
 * quick sweep space (threads up to the core count × flash_attn × V cache), or on the server
 * backend the quick serving space (threads × slots auto/1 × flash_attn).
 */
export function llamacppRestrict(cores = cpus().length, given: Record<string, string[]> = {}, serving = false): Record<string, string[]> {
  const space = (Object.keys(given).length ? given : serving ? servingSweepSpace('quick', cores) : sweepSpace('quick', cores)) as Record<string, readonly string[]>
  return Object.fromEntries([...LLAMACPP_DIMENSIONS, ...LLAMACPP_SERVER_DIMENSIONS].map((d) => [d.id, [...(space[d.id] ?? [d.defaultValue])]]))
}

export async function buildRunRequest(file: string | undefined, f: RunRequestFlags, cwd: string): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {}
  if (file) {
    const path = resolve(cwd, file)
    let text: string
    try { text = readFileSync(path, 'utf8') } catch { throw new KerneltuneError('INVALID_INPUT', `cannot read the request file ${path}; pass an existing REQUEST.json or use --gguf FILE`) }
    body = parseJson(text, `request file ${path}`)
  }
  const restrict = f.restrict ? parseJson(f.restrict, '--restrict') as Record<string, string[]> : undefined
  if (f.gguf) {
    const modelPath = resolve(cwd, f.gguf)
    if (!(await stat(modelPath).catch(() => undefined))?.isFile()) throw new KerneltuneError('INVALID_INPUT', `${modelPath} is not a file; pass an existing GGUF with --gguf (make one with \`kerneltune model synth\`)`)
    const { detectHardware, fromGguf, specFromDetected } = await import('@kerneltune/features/node')
    body.modelPath = modelPath
    body.engine = f.engine ?? body.engine ?? 'llamacpp'
    body.backend = f.backend ?? body.backend ?? 'llamacpp'
    body.model ??= (await fromGguf(modelPath)).model
    body.hardware ??= specFromDetected(await detectHardware())
  }
  if (f.engine) body.engine = f.engine
  if (f.backend) body.backend = f.backend
  if (f.mode) body.mode = f.mode
  if (f.reps !== undefined) body.repetitions = f.reps
  if (f.warmups !== undefined) body.warmups = f.warmups
  if (f.maxCombos !== undefined) body.maxCombos = f.maxCombos
  if (f.registryKernels) body.registryKernels = true
  if (f.design) body.design = f.design
  if (f.rounds !== undefined) body.rounds = f.rounds
  if (f.seed !== undefined) body.seed = f.seed
  if (f.test) body.test = f.test
  Object.assign(body, objectiveFields(f))
  if (f.promptTokens !== undefined || f.genTokens !== undefined) {
    body.workload = { batch: 1, ...(body.workload as object ?? {}), ...(f.promptTokens !== undefined ? { promptTokens: f.promptTokens } : {}), ...(f.genTokens !== undefined ? { generatedTokens: f.genTokens } : {}) }
  }
  // llama.cpp's full space is tens of thousands of combinations: default to the quick sweep space.
  if (body.engine === 'llamacpp') body.restrict = llamacppRestrict(undefined, restrict ?? (body.restrict as Record<string, string[]> | undefined) ?? {}, body.backend === 'server')
  else if (restrict) body.restrict = restrict
  if (!body.model || !body.hardware || !body.engine) {
    throw new KerneltuneError('INVALID_INPUT', 'a run needs a model, hardware and an engine: pass REQUEST.json or --gguf FILE (the file follows RunRequestSchema)')
  }
  return body
}
