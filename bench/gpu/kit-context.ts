/**
 * What every step of the GPU kit shares: where things are, the deadline, the device's identity
 * (every figure names the GPU, driver, CUDA and llama.cpp versions) and an atomic JSON writer.
 */
import { renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { KitPlan } from './kit-plan.ts'
import type { RunArgv } from './kit-provenance.ts'

export interface DeviceIdentity {
  readonly mode: 'cuda' | 'cpu'
  readonly gpu: { readonly name: string; readonly driver: string; readonly memoryMiB: number; readonly computeCap: string } | null
  readonly cuda: string | null
  readonly cpu: { readonly model: string; readonly cores: number; readonly threads: number }
  readonly llamaCpp: { readonly tag: string; readonly commit: string; readonly version: string }
  /** The packed checkout: commit, whether it was dirty, and what was (pack-device.sh's `git status --porcelain`). */
  readonly kerneltune: { readonly commit: string; readonly dirty: boolean; readonly dirtyFiles: readonly string[] | 'not recorded' }
  readonly node: string
}

export interface KitContext {
  readonly plan: KitPlan
  /** The bundled CLI (kerneltune.mjs) and the node that runs it. */
  readonly node: string
  readonly cli: string
  readonly binDir: string
  readonly outDir: string
  readonly workDir: string
  /** Epoch milliseconds after which no new measurement starts. */
  readonly deadline: number
  readonly threads: number
  readonly log: (msg: string) => void
  device?: DeviceIdentity
  /** The exact command lines of this run, named in every file it writes. */
  readonly argv?: RunArgv
  readonly skipped: { step: string; what: string; why: string }[]
}

export const secondsLeft = (ctx: KitContext): number => (ctx.deadline - Date.now()) / 1000

export function skip(ctx: KitContext, step: string, what: string, why: string): void {
  ctx.skipped.push({ step, what, why })
  ctx.log(`SKIPPED ${step}: ${what}: ${why}`)
}

/** Written to a temporary name and renamed, so a run killed mid-write leaves the previous file whole. */
export function writeResult(ctx: KitContext, file: string, body: Record<string, unknown>): void {
  const path = join(ctx.outDir, file)
  const doc = { kit: 'kerneltune-gpu-kit', writtenAt: new Date().toISOString(), device: ctx.device ?? null, argv: ctx.argv ?? null, ...body }
  writeFileSync(`${path}.tmp`, `${JSON.stringify(doc, null, 2)}\n`)
  renameSync(`${path}.tmp`, path)
}
