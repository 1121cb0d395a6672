/**
 * A run request from an optional REQUEST.json and the fields a person gave (the CLI's flags), as
 * `kerneltune run create` sends it, checked with the server's own schema before it is sent. With
 * a GGUF model file the request measures that model with the default serving engine: the model
 * spec is read from the file, the hardware detected on this machine, and unless the request says
 * otherwise the space is the engine's quick space (below) with every other dimension at its default.
 */
import { readFile, stat } from 'node:fs/promises'
import { cpus } from 'node:os'
import { resolve } from 'node:path'
import { KerneltuneError, parseWith } from '@kerneltune/core'
import { LLAMACPP_DIMENSIONS, LLAMACPP_SERVER_DIMENSIONS, servingSweepSpace, sweepSpace } from '@kerneltune/engines-llamacpp'
import { RunRequestSchema, type RunRequestInput } from '@kerneltune/tuner'
import { DEFAULT_SERVING_ENGINE } from './engines.ts'

export interface RunRequestFields {
  readonly engine?: string | undefined; readonly backend?: string | undefined; readonly gguf?: string | undefined; readonly mode?: string | undefined
  readonly reps?: number | undefined; readonly warmups?: number | undefined; readonly restrict?: string | undefined; readonly maxCombos?: number | undefined
  readonly promptTokens?: number | undefined; readonly genTokens?: number | undefined; readonly registryKernels?: boolean | undefined
  readonly design?: string | undefined; readonly rounds?: number | undefined; readonly seed?: number | undefined; readonly test?: string | undefined
  /** The objectives, already resolved (name → ms, and the objective's name). */
  readonly slo?: Record<string, number> | undefined; readonly objective?: string | undefined
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
export function llamacppRestrict(cores: number = cpus().length, given: Record<string, string[]> = {}, serving = false): Record<string, string[]> {
  const space = (Object.keys(given).length ? given : serving ? servingSweepSpace('quick', cores) : sweepSpace('quick', cores)) as Record<string, readonly string[]>
  return Object.fromEntries([...LLAMACPP_DIMENSIONS, ...LLAMACPP_SERVER_DIMENSIONS].map((d) => [d.id, [...(space[d.id] ?? [d.defaultValue])]]))
}

/** Engines whose full space is too large to enumerate by default (tens of thousands of combinations): a run gets their quick space unless it names one. */
const QUICK_SPACES: Readonly<Record<string, (given: Record<string, string[]>, backend: unknown) => Record<string, string[]>>> = {
  llamacpp: (given, backend) => llamacppRestrict(undefined, given, backend === 'server'),
}

export async function buildRunRequest(file: string | undefined, f: RunRequestFields, cwd: string): Promise<RunRequestInput> {
  let body: Record<string, unknown> = {}
  if (file) {
    const path = resolve(cwd, file)
    let text: string
    try { text = await readFile(path, 'utf8') } catch { throw new KerneltuneError('INVALID_INPUT', `cannot read the request file ${path}; pass an existing REQUEST.json or use --gguf FILE`) }
    body = parseJson(text, `request file ${path}`)
  }
  const restrict = f.restrict ? parseJson(f.restrict, '--restrict') as Record<string, string[]> : undefined
  if (f.gguf) {
    const modelPath = resolve(cwd, f.gguf)
    if (!(await stat(modelPath).catch(() => undefined))?.isFile()) throw new KerneltuneError('INVALID_INPUT', `${modelPath} is not a file; pass an existing GGUF with --gguf (make one with \`kerneltune model synth\`)`)
    const { detectHardware, fromGguf, specFromDetected } = await import('@kerneltune/features/node')
    body.modelPath = modelPath
    // The engine's in-process backend carries the engine's name (a model-file backend).
    body.engine = f.engine ?? body.engine ?? DEFAULT_SERVING_ENGINE
    body.backend = f.backend ?? body.backend ?? DEFAULT_SERVING_ENGINE
    body.model ??= (await fromGguf(modelPath)).model
    body.hardware ??= specFromDetected(await detectHardware())
  }
  const fields: Record<string, unknown> = {
    engine: f.engine, backend: f.backend, mode: f.mode, repetitions: f.reps, warmups: f.warmups, maxCombos: f.maxCombos, registryKernels: f.registryKernels || undefined,
    design: f.design, rounds: f.rounds, seed: f.seed, test: f.test, slo: f.slo, objective: f.objective,
  }
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body[k] = v
  if (f.promptTokens !== undefined || f.genTokens !== undefined) {
    body.workload = { batch: 1, ...(body.workload as object ?? {}), ...(f.promptTokens !== undefined ? { promptTokens: f.promptTokens } : {}), ...(f.genTokens !== undefined ? { generatedTokens: f.genTokens } : {}) }
  }
  const quick = typeof body.engine === 'string' ? QUICK_SPACES[body.engine] : undefined
  if (quick) body.restrict = quick(restrict ?? (body.restrict as Record<string, string[]> | undefined) ?? {}, body.backend)
  else if (restrict) body.restrict = restrict
  if (!body.model || !body.hardware || !body.engine) {
    throw new KerneltuneError('INVALID_INPUT', 'a run needs a model, hardware and an engine: pass REQUEST.json or --gguf FILE (the file follows RunRequestSchema)')
  }
  // Checked here with the server's own schema, so a bad request fails before anything is sent; what is sent is the request as given.
  parseWith(RunRequestSchema, body, 'run request')
  return body as RunRequestInput
}
