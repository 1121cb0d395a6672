/** Shared setup of the run/tune/token/serve command tests: a CLI driver and a small analytical run request. */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RunDetail, Translation } from '@kerneltune/web/api-types'
import type { Io } from '../cli/command.ts'
import { runCli } from '../cli/run.ts'
import { runCommand } from './run.ts'
import { serveCommand } from './serve.ts'
import { tokenCommand } from './token.ts'
import { tuneCommand } from './tune.ts'

export const MODEL = { name: 'tiny', paramsB: 1.1, hiddenDim: 2048, numLayers: 22, numHeads: 32, numKvHeads: 4, intermediateDim: 5632, quant: 'F16' }
export const HARDWARE = { name: 'NVIDIA H100 SXM', vendor: 'nvidia' as const, memBwGbs: 3350, fp16Tflops: 989, computeCapability: '9.0' }
/** An analytical vllm run of 8 combinations whose winner is an fp8 activation dtype. */
export const SMALL_RUN = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 3, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2', 'flashinfer'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
}

const root = { name: 'kerneltune', summary: 'root', subcommands: [runCommand, tuneCommand, tokenCommand, serveCommand] }

export function tempDir(prefix: string): { dir: string; file(name: string, value: unknown): string } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, file: (name, value) => (writeFileSync(join(dir, name), JSON.stringify(value)), join(dir, name)) }
}

/** A translation the test expects to have succeeded: its command line, or a failure saying what it refused. */
export function translated(t: Translation): Extract<Translation, { ok: true }> {
  if (!t.ok) throw new Error(`the translation refused ${t.dimension}=${t.value}: ${t.reason}`)
  return t
}

/** What a command prints with --json when it fails. */
export interface CliFailure { ok: false; error: { code: string; message: string } }

/**
 * Runs the CLI in process; `json` is the parsed stdout when it is JSON, read as `T`: what the
 * command prints, by the generated API types (a run by default, as `run create` prints it).
 */
export async function cli<T = RunDetail>(cwd: string, argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string; json: T }> {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env, cwd }
  const code = await runCli(root, argv, io)
  const stdout = out.join('')
  let json: unknown
  try { json = JSON.parse(stdout) } catch { json = undefined }
  // Not checked: the tests assert what they read of it.
  return { code, out: stdout, err: err.join(''), json: json as T }
}
