/**
 * Conditional skips that say why, and that cannot hide a missing part in CI.
 *
 * `describe.skipIf(requireOrSkip(available, reason))` skips a suite whose real part (PostgreSQL,
 * WebGPU on lavapipe, Redis, llama-server, Bun, Deno, ...) is absent, printing
 * `kerneltune-skip: <reason>` so that `npm test` can list the reasons under its total. Under
 * CI=true, where .ci/run provides those parts, a missing one is a failure instead: the suite is
 * still skipped (its own errors would only be noise) and one failing test in its place names the
 * part and the reason. `../shared` (reference inventories, public data) counts as a real part:
 * CI copies it beside the clone, so a suite that needs it fails there when it is missing instead
 * of passing silently. A part that only some runtimes have (WebGPU under Deno) names those
 * runtimes in `runtimes`; on the others it skips with the reason, in CI too.
 *
 * There is deliberately no exported skip that never fails: one existed (`skipUnless`) and let
 * the inventory cross-checks, the replay tests and the learned-model tests pass CI unseen.
 *
 * Works on Node (vitest), Bun (which maps 'vitest' to bun:test) and Deno (the shim).
 */
import { it } from 'vitest'

export type Runtime = 'node' | 'bun' | 'deno'

/** The runtime running the tests. */
export const RUNTIME: Runtime = 'Deno' in globalThis ? 'deno' : 'Bun' in globalThis ? 'bun' : 'node'

/** The prefix test-all.mjs looks for to list the skip reasons. */
export const SKIP_MARKER = 'kerneltune-skip:'

function env(name: string): string | undefined {
  return (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env[name]
}

/** True under CI=true (or CI=1), as .ci/run and most CI services set it. */
export function inCi(): boolean {
  const v = env('CI')?.toLowerCase()
  return v === 'true' || v === '1'
}

export interface RequireOptions {
  /** Runtimes on which the part is required under CI; elsewhere a missing part only skips. Default: all. */
  runtimes?: readonly Runtime[]
  /** For tests of this helper: whether CI is on (default: the CI variable). */
  ci?: boolean
  /** For tests of this helper: where the failing test goes (default: vitest's `it`). */
  register?: (name: string, fn: () => void) => void
  /** For tests of this helper: where the skip line goes (default: console.warn). */
  log?: (line: string) => void
}

/**
 * Returns true when the suite must be skipped because `available` is false. Under CI on a
 * runtime where the part is required, it also registers a test that fails with the reason.
 */
export function requireOrSkip(available: boolean, reason: string, options: RequireOptions = {}): boolean {
  if (available) return false
  const required = (options.ci ?? inCi()) && (options.runtimes ?? [RUNTIME]).includes(RUNTIME)
  if (!required) return skipWithReason(reason, options)
  const register = options.register ?? it
  register(`requires: ${reason}`, () => {
    throw new Error(`CI=true requires this, but it is missing: ${reason}. CI provides it (.ci/run installs and starts the services; a CI checkout has ../shared beside it); outside CI, unset CI to skip instead.`)
  })
  return true
}

/** Prints the reason in the form test-all.mjs lists, and says skip. */
function skipWithReason(reason: string, options: Pick<RequireOptions, 'log'>): true {
  ;(options.log ?? console.warn)(`${SKIP_MARKER} ${reason}`)
  return true
}
