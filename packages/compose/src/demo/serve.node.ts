/**
 * The demo's last step: launch the engine's server with the recommended command line and measure
 * it under concurrent streaming load (1 and 4 requests in flight), next to the in-process figures.
 * When no server binary exists (a fresh clone), the demo builds it with the repository's build
 * script (llama-server: about 17 CPU-minutes on a 2-core machine, once: the build is cached),
 * reporting its progress, unless it was told not to build.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { requireServing, type Combo } from '@kerneltune/core'
import { withoutDefaults } from '@kerneltune/engines-llamacpp'
import { findServerBinary, runServingSession, type SessionResult } from '@kerneltune/serving/node'
import { servingEngine } from '../compose.node.ts'

/** The demo's engine (the one its GGUF and in-process sweep are for) and the script that builds its server. */
const ENGINE = 'llamacpp'
const BUILD_SCRIPT = fileURLToPath(new URL('../../../../tooling/scripts/build-llama-server.sh', import.meta.url))

/** The binary, building it when missing and allowed; the reason otherwise. */
async function ensureBinary(build: boolean, say: (line: string) => void): Promise<{ path: string } | { reason: string }> {
  const engine = servingEngine(ENGINE)
  const serving = requireServing(engine)
  const { program, installHint } = serving.binary
  const found = findServerBinary(engine.name, serving)
  if (found) return { path: found.path }
  if (!build) return { reason: `no ${program} binary (--no-build); ${installHint}` }
  if (!existsSync(BUILD_SCRIPT)) return { reason: `no ${program} binary and no build script next to this CLI; ${installHint}` }
  say(`no ${program} binary: building it once with ${BUILD_SCRIPT} (about 17 CPU-minutes on 2 cores; cached afterwards; --no-build skips this step)`)
  const t0 = Date.now()
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'ignore', 'pipe'] })
    child.stderr.on('data', (c: Buffer) => c.toString().split('\n').filter(Boolean).forEach((l) => say(l)))
    const beat = setInterval(() => say(`building ${program}: ${Math.round((Date.now() - t0) / 1000)} s`), 30_000)
    child.once('exit', (c) => (clearInterval(beat), resolve(c)))
    child.once('error', () => (clearInterval(beat), resolve(null)))
  })
  const built = findServerBinary(engine.name, serving)
  return built ? { path: built.path } : { reason: `the ${program} build failed (exit ${code}); run \`bash ${BUILD_SCRIPT}\` to see why` }
}

export interface DemoServeInput {
  readonly modelPath: string
  /** The recommended combination (its settings at their defaults are left out of the command line). */
  readonly combo: Combo
  readonly promptTokens: number
  readonly outputTokens: number
  readonly build: boolean
  /** Progress lines (the build's output among them). */
  readonly say: (line: string) => void
}

/**
 * binarySeconds: finding (or building) the server, a phase of the demo's wall time of its own;
 * built: whether this run built it (buildSeconds then says how long that took).
 */
export type DemoServeResult =
  | { readonly session: SessionResult; readonly buildSeconds?: number; readonly binarySeconds: number; readonly built: boolean }
  | { readonly skipped: string; readonly binarySeconds: number; readonly built: boolean }

export async function demoServe(i: DemoServeInput): Promise<DemoServeResult> {
  const t0 = Date.now()
  const engine = servingEngine(ENGINE)
  const had = findServerBinary(engine.name, requireServing(engine)) !== undefined
  const bin = await ensureBinary(i.build, i.say)
  const binarySeconds = (Date.now() - t0) / 1000
  const built = !had && !('reason' in bin)
  if ('reason' in bin) return { skipped: bin.reason, binarySeconds, built }
  i.say(`launching ${requireServing(engine).binary.program} with the recommended command line and measuring it under concurrent load (1 and 4 requests in flight)`)
  const session = await runServingSession({
    target: { kind: 'engine', engine, binary: bin.path, model: i.modelPath },
    combo: withoutDefaults(i.combo),
    levels: [{ concurrency: 1 }, { concurrency: 4 }],
    load: { workload: { kind: 'synthetic', promptTokens: i.promptTokens, outputTokens: i.outputTokens }, requests: 8, warmups: 2 },
  })
  return built ? { session, buildSeconds: binarySeconds, binarySeconds, built } : { session, binarySeconds, built }
}
