/**
 * Helpers of the distributed tests (not part of the server): fixture processes (workers, a server)
 * that the tests SIGKILL, the Tier 1 run they sweep, and the exactly-once check in the store.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import process from 'node:process'
import { createInterface } from 'node:readline'
import { expect } from 'vitest'
import type { Store } from '@kerneltune/store'
import { MODEL, HARDWARE } from '../test-helpers.ts'

export const REDIS = process.env.KERNELTUNE_TEST_REDIS_URL
export const PG = process.env.KERNELTUNE_TEST_PG_URL

export const RUN = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 2, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'] }, maxCombos: 12, earlyStop: false, useCache: false,
}
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Polls until `ok` (the machine running the tests may be loaded: process starts take seconds). */
export async function until(ok: () => Promise<boolean>, seconds = 90) {
  for (const end = Date.now() + seconds * 1000; Date.now() < end && !(await ok());) await sleep(100)
}
export const progress = (store: Store, id: string) => store.runs.require(null, id).then((r) => r.progress.done)

/** Every child a test spawned, so afterAll kills what a failed test left behind. */
export const children: ChildProcess[] = []

/** Starts a `*.fixture.ts` of this folder and resolves with the JSON line it prints once ready. */
export function spawnFixture(file: string, env: Record<string, string>): Promise<{ child: ChildProcess; line: Record<string, string> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kerneltune/source', join(import.meta.dirname, file)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(child)
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (l) => resolve({ child, line: JSON.parse(l) as Record<string, string> }))
    child.once('exit', (code) => reject(new Error(`${file} exited early (${code})`)))
  })
}
export const kill = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGKILL')
  await new Promise((r) => child.once('exit', r))
}

/** Every combination has exactly one result and the run counted each once. */
export async function expectExactlyOnce(store: Store, runId: string) {
  const run = await store.runs.require(null, runId)
  const combos = await store.runs.combos(runId)
  expect(run.status).toBe('succeeded')
  expect(combos.map((c) => c.status)).toEqual(combos.map(() => 'measured'))
  expect(run.progress).toEqual({ done: combos.length, total: combos.length })
  const rows = await store.driver.query('SELECT idx, COUNT(*) AS n FROM kernel_run_combos WHERE run_id = ? GROUP BY idx', [runId])
  expect(rows.every((r) => Number(r.n) === 1)).toBe(true)
  return combos
}
