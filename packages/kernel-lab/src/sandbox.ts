/**
 * The sandbox contract: what a candidate module is, what the sandbox reports about it, and the
 * harness that runs inside the sandbox. The process runner lives in
 * `src/adapters/deno-sandbox.node.ts`; everything here is runtime-free so it can be tested and
 * reused anywhere.
 *
 * A candidate is a plain, self-contained ES module (JavaScript) whose default export is a
 * function `(ctx) => result`. `ctx` is `{ input, readFile(name), gpu }`: the JSON input, the files
 * placed beside it (by name, read-only), and `navigator.gpu` when the sandbox enables WebGPU.
 * The result must be JSON-serialisable (typed arrays become plain arrays).
 */
import { z } from 'zod'

export const SANDBOX_OUTCOMES = ['ok', 'threw', 'denied', 'timeout', 'memory', 'crashed', 'invalid-module'] as const
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number]

// The zod types are spelled out (not inferred) so JSR can publish the package without slow types.
export const SandboxLimitsSchema: z.ZodObject<{
  timeoutMs: z.ZodDefault<z.ZodNumber>
  memoryMb: z.ZodDefault<z.ZodNumber>
  webgpu: z.ZodDefault<z.ZodBoolean>
}> = z.object({
  /** Wall-clock limit of the whole subprocess, start-up included. */
  timeoutMs: z.number().int().min(100).max(600_000).default(20_000),
  /** V8 heap cap (--max-old-space-size) and, 4x that, the data-segment cap (prlimit --data) for native allocations. */
  memoryMb: z.number().int().min(32).max(16_384).default(512),
  /** Expose navigator.gpu (Deno's --unstable-webgpu). */
  webgpu: z.boolean().default(false),
})
export type SandboxLimits = z.infer<typeof SandboxLimitsSchema>

export interface SandboxReport {
  outcome: SandboxOutcome
  ok: boolean
  /** The candidate's return value (only when ok). */
  result?: unknown
  /** What went wrong: the thrown error, or why the process was stopped. */
  error?: { name: string; message: string }
  /** The permission a denied operation needed: net, read, write, env, run, ffi, sys, import. */
  denied?: string
  wallMs: number
  exitCode: number | null
  signal: string | null
  limits: SandboxLimits
  /** The exact Deno permission flags the candidate ran with. */
  permissions: string[]
  /** The last lines the process wrote to stderr (Deno's own diagnostics), for debugging. */
  stderrTail: string[]
}

/** What the harness writes to its result file. */
export const HarnessResultSchema: z.ZodUnion<readonly [
  z.ZodObject<{ ok: z.ZodLiteral<true>; result: z.ZodUnknown; wallMs: z.ZodNumber }>,
  z.ZodObject<{
    ok: z.ZodLiteral<false>
    stage: z.ZodEnum<{ load: 'load'; run: 'run' }>
    error: z.ZodObject<{ name: z.ZodString; message: z.ZodString }>
    wallMs: z.ZodNumber
  }>,
]> = z.union([
  z.object({ ok: z.literal(true), result: z.unknown(), wallMs: z.number() }),
  z.object({ ok: z.literal(false), stage: z.enum(['load', 'run']), error: z.object({ name: z.string(), message: z.string() }), wallMs: z.number() }),
])
export type HarnessResult = z.infer<typeof HarnessResultSchema>

const DENIED = /Requires (\w+) access|run again with the --allow-(\w+) flag/

/** The permission named in a Deno permission error, if the message is one. */
export function deniedPermission(error: { name?: string; message?: string } | undefined): string | undefined {
  if (!error) return undefined
  const m = DENIED.exec(error.message ?? '')
  if (m) return m[1] ?? m[2]
  return error.name === 'NotCapable' || error.name === 'PermissionDenied' ? 'unknown' : undefined
}

const MEMORY = /out of memory|memory allocation of \d+ bytes failed|allocation failed|heap limit/i

/** Turns what the process left behind into a report; pure, so every branch is unit-tested. */
export function classifySandboxRun(run: {
  harness: unknown
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  stderr: string
  wallMs: number
  limits: SandboxLimits
  permissions: string[]
}): SandboxReport {
  const stderrTail = run.stderr.split('\n').filter((l) => l.trim() && !/XDG_RUNTIME_DIR/.test(l)).slice(-20)
  const base = { wallMs: run.wallMs, exitCode: run.exitCode, signal: run.signal, limits: run.limits, permissions: run.permissions, stderrTail }
  if (run.timedOut) {
    return { ...base, outcome: 'timeout', ok: false, error: { name: 'Timeout', message: `the candidate ran past the ${run.limits.timeoutMs} ms wall-clock limit and was killed` } }
  }
  const parsed = HarnessResultSchema.safeParse(run.harness)
  if (parsed.success && parsed.data.ok) return { ...base, outcome: 'ok', ok: true, result: parsed.data.result }
  if (parsed.success && !parsed.data.ok) {
    const { error, stage } = parsed.data
    const denied = deniedPermission(error)
    if (denied) return { ...base, outcome: 'denied', ok: false, error, denied }
    // An ArrayBuffer past the data-segment cap fails with a RangeError the candidate may rethrow.
    if (MEMORY.test(error.message)) return { ...base, outcome: 'memory', ok: false, error }
    return { ...base, outcome: stage === 'load' ? 'invalid-module' : 'threw', ok: false, error }
  }
  if (MEMORY.test(run.stderr)) {
    return { ...base, outcome: 'memory', ok: false, error: { name: 'OutOfMemory', message: `the candidate exceeded the ${run.limits.memoryMb} MB memory cap and was stopped` } }
  }
  const how = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.exitCode}`
  return { ...base, outcome: 'crashed', ok: false, error: { name: 'Crashed', message: `the sandbox process ${how} without a result${stderrTail.length ? `: ${stderrTail.slice(-3).join(' | ')}` : ''}` } }
}

/**
 * The harness: the sandbox's main module, written beside the candidate. It imports the candidate
 * from a blob: URL, not a file: URL, because Deno lets a file module's static imports read local
 * files without --allow-read; from a blob module every local import goes through the permission
 * check. Arguments: the result file (the only writable path).
 */
export const HARNESS_SOURCE = `const resultPath = Deno.args[0]
const started = performance.now()
const dir = new URL('./', import.meta.url)
const plain = (_k, v) => (ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v) : typeof v === 'bigint' ? String(v) : v)
const err = (e) => ({ name: String(e?.name ?? 'Error'), message: String(e?.message ?? e).slice(0, 4000) })
let out
let stage = 'load'
try {
  const source = Deno.readTextFileSync(new URL('candidate.js', dir))
  const input = JSON.parse(Deno.readTextFileSync(new URL('input.json', dir)))
  const mod = await import(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })))
  if (typeof mod.default !== 'function') throw new TypeError('the module has no default export function: write export default async function (ctx) { ... }')
  stage = 'run'
  const readFile = (name) => {
    if (!/^[\\w.-]+$/.test(name)) throw new TypeError('readFile takes a bare file name from the input folder')
    return Deno.readFileSync(new URL('files/' + name, dir))
  }
  const result = await mod.default({ input, readFile, gpu: globalThis.navigator?.gpu ?? null })
  out = JSON.stringify({ ok: true, result: result === undefined ? null : result, wallMs: performance.now() - started }, plain)
} catch (e) {
  out = JSON.stringify({ ok: false, stage, error: err(e), wallMs: performance.now() - started })
}
Deno.writeTextFileSync(resultPath, out)
// A candidate may leave timers or handles open: the result is written, so stop here.
Deno.exit(0)
`
