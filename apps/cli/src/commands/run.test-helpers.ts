/** Shared setup of the run/tune/token/serve command tests: a CLI driver and a small analytical run request. */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

/** Runs the CLI in process; `json` is the parsed stdout when it is JSON. */
export async function cli(cwd: string, argv: string[], env: Record<string, string> = {}) {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env, cwd }
  const code = await runCli(root, argv, io)
  const stdout = out.join('')
  let json: any
  try { json = JSON.parse(stdout) } catch { json = undefined }
  return { code, out: stdout, err: err.join(''), json }
}
