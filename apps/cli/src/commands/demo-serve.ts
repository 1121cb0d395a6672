/**
 * The demo's last step: launch llama-server with the recommended command line and measure it
 * under concurrent streaming load, next to the in-process figures. When no llama-server binary
 * exists (a fresh clone), the demo builds it with tooling/scripts/build-llama-server.sh (about
 * 17 CPU-minutes on a 2-core machine, once: the build is cached), printing its progress, unless
 * --no-build says to skip the step with the instructions instead.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Combo } from '@kerneltune/core'
import { LLAMACPP_VERSION, llamacppServerEngine } from '@kerneltune/engines-llamacpp'
import { BUILD_HINT, findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { runServingSession, type SessionResult } from '@kerneltune/serving/node'
import type { Io } from '../cli/command.ts'
import { fmt } from '../cli/output.ts'

const BUILD_SCRIPT = fileURLToPath(new URL('../../../../tooling/scripts/build-llama-server.sh', import.meta.url))

/** The binary, building it when missing and allowed; undefined with the reason otherwise. */
export async function ensureLlamaServer(io: Io, build: boolean): Promise<{ path: string } | { reason: string }> {
  const found = findLlamaServer(LLAMACPP_VERSION)
  if (found) return { path: found.path }
  if (!build) return { reason: `no llama-server binary (--no-build); ${BUILD_HINT}` }
  if (!existsSync(BUILD_SCRIPT)) return { reason: `no llama-server binary and no build script next to this CLI; ${BUILD_HINT}` }
  io.stderr(`[demo] no llama-server binary: building it once with ${BUILD_SCRIPT} (about 17 CPU-minutes on 2 cores; cached afterwards; --no-build skips this step)\n`)
  const t0 = Date.now()
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'ignore', 'pipe'] })
    child.stderr.on('data', (c: Buffer) => io.stderr(c.toString().replace(/^/gm, '[demo] ')))
    const beat = setInterval(() => io.stderr(`[demo] building llama-server: ${fmt((Date.now() - t0) / 1000, 0)} s\n`), 30_000)
    child.once('exit', (c) => (clearInterval(beat), resolve(c)))
    child.once('error', () => (clearInterval(beat), resolve(null)))
  })
  const built = findLlamaServer(LLAMACPP_VERSION)
  return built ? { path: built.path } : { reason: `the llama-server build failed (exit ${code}); run \`bash ${BUILD_SCRIPT}\` to see why` }
}

export interface DemoServeInput {
  readonly modelPath: string
  /** The recommended combination (defaults removed). */
  readonly combo: Combo
  readonly promptTokens: number
  readonly outputTokens: number
  readonly build: boolean
}

/**
 * binarySeconds: finding (or building) llama-server, a phase of the demo's wall time of its own;
 * built: whether this run built it (buildSeconds, as before, then says how long that took).
 */
export type DemoServeResult =
  | { readonly session: SessionResult; readonly buildSeconds?: number; readonly binarySeconds: number; readonly built: boolean }
  | { readonly skipped: string; readonly binarySeconds: number; readonly built: boolean }

export async function demoServe(io: Io, i: DemoServeInput): Promise<DemoServeResult> {
  const t0 = Date.now()
  const had = findLlamaServer(LLAMACPP_VERSION) !== undefined
  const bin = await ensureLlamaServer(io, i.build)
  const buildSeconds = (Date.now() - t0) / 1000
  const built = !had && !('reason' in bin)
  if ('reason' in bin) return { skipped: bin.reason, binarySeconds: buildSeconds, built }
  io.stderr('[demo] launching llama-server with the recommended command line and measuring it under concurrent load (1 and 4 requests in flight)\n')
  const session = await runServingSession({
    target: { kind: 'engine', engine: llamacppServerEngine({ binary: bin.path }), binary: bin.path, model: i.modelPath },
    combo: i.combo,
    levels: [{ concurrency: 1 }, { concurrency: 4 }],
    load: { workload: { kind: 'synthetic', promptTokens: i.promptTokens, outputTokens: i.outputTokens }, requests: 8, warmups: 2 },
  })
  return built ? { session, buildSeconds, binarySeconds: buildSeconds, built } : { session, binarySeconds: buildSeconds, built }
}
