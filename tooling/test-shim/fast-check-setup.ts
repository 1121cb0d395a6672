/**
 * Makes every fast-check property reproducible: one seed for all `fc.assert` calls, fixed unless
 * KERNELTUNE_FC_SEED asks otherwise (see fast-check-seed.ts). Loaded before the tests on each
 * runtime: vitest (`setupFiles` in the preset), Bun (`--preload`, passed by
 * run-runtime-tests.mjs) and Deno (imported by the vitest shim). fast-check keeps its global
 * configuration in module state, and every package resolves the one `fast-check` of the
 * workspace root, so setting it here reaches all of them. A failing property prints its seed in
 * the error (`{ seed: N, path: ... }`).
 */
import fc from 'fast-check'
import { resolveFastCheckSeed, type Env } from './fast-check-seed.ts'

const env: Env = (globalThis as { process?: { env: Env } }).process?.env ?? {}
const { seed, source } = resolveFastCheckSeed(env)
if (source === 'random') {
  // Pin it for anything this process starts, and say it once so a failure can be replayed.
  env.KERNELTUNE_FC_SEED = String(seed)
  console.error(`fast-check: random seed ${seed} (replay with KERNELTUNE_FC_SEED=${seed})`)
}
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed })

export const FAST_CHECK_SEED = seed
