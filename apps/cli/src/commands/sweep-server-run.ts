/**
 * The `sweep` command's path for `--backend server` and `--design interleaved`: plans the space
 * (the serving space, with slots and continuous batching, for the server backend), measures it
 * and prints the interleaved report. Kept apart from sweep.ts so the in-process path stays as it was.
 */
import { llamacppEngine, withoutDefaults, type SweepMode, type SweepSpace } from '@kerneltune/engines-llamacpp'
import { SWEEP_GATE_DEFAULTS, runInterleavedSweep, type InterleavedSweepResult, type SweepResult } from '@kerneltune/experiment'
import { llamacppBackend } from '@kerneltune/engines-llamacpp/node'
import type { HardwareSpec } from '@kerneltune/core'
import type { CommandContext } from '../cli/command.ts'
import { fmt, progressBar } from '../cli/output.ts'
import type { SWEEP_FLAGS } from './sweep-flags.ts'
import { planSweep, renderSweep, SWEEP_DEFAULTS } from './sweep-plan.ts'
import { executeServerSweep, planServingSweep, renderInterleaved } from './sweep-server.ts'

export interface ServerRunInput {
  readonly modelPath: string
  readonly modelBytes: number
  readonly mode: SweepMode
  readonly override: SweepSpace | undefined
  readonly hardware: HardwareSpec
  readonly cores: number
}

const isInterleaved = (r: InterleavedSweepResult | SweepResult): r is InterleavedSweepResult => (r as InterleavedSweepResult).design === 'interleaved'

export async function runServerOrInterleaved(ctx: CommandContext<typeof SWEEP_FLAGS>, i: ServerRunInput): Promise<number> {
  const f = ctx.flags
  const server = f.backend === 'server'
  const design = f.design ?? (server ? 'interleaved' : 'sequential')
  const test = f.test ?? 'sign-flip'
  const plan = server ? planServingSweep(i.mode, i.hardware, i.cores, i.override) : planSweep(i.mode, i.hardware, i.cores, i.override)
  const d = SWEEP_DEFAULTS[i.mode]
  // The sign-flip test needs 7 rounds to reach p < 0.05 at all (minRoundsToDecide).
  const rounds: number = f.rounds ?? (i.mode === 'quick' ? 8 : 12)
  const gate = f.gate ?? SWEEP_GATE_DEFAULTS.gate
  const metric = f.metric ?? 'decodeTps'
  const epsilon: number = f.epsilon ?? SWEEP_GATE_DEFAULTS.epsilon
  const margin: number = f.margin ?? SWEEP_GATE_DEFAULTS.margin
  const promptTokens: number = f.promptTokens ?? d.promptTokens
  const outputTokens: number = f.genTokens ?? d.genTokens
  const started = Date.now()
  ctx.io.stderr(`sweeping ${plan.candidates.length} combinations (${plan.pruned.length} removed by llama.cpp's rules) against the defaults, ${i.mode} mode, ${design} design, ${server ? `llama-server under ${f.concurrency ?? 4} concurrent requests` : 'node-llama-cpp in-process'}\n`)
  let r: InterleavedSweepResult | SweepResult
  if (server) {
    r = await executeServerSweep(ctx.io, {
      modelPath: i.modelPath, modelBytes: i.modelBytes, plan, design, concurrency: f.concurrency ?? 4, requests: f.requests ?? 8, promptTokens, outputTokens,
      rounds, ...(f.timeBudget === undefined ? {} : { timeBudgetMs: f.timeBudget * 1000 }), warmups: f.warmup ?? 1, seed: f.seed ?? 1, test, gate, metric, epsilon, margin,
    })
  } else {
    const backend = llamacppBackend({ modelPath: i.modelPath, gpu: f.gpu === 'off' || f.gpu === undefined ? false : f.gpu, promptTokens, genTokens: outputTokens })
    const arms = plan.candidates.length + 2
    const bar = progressBar(ctx.io, 'sweep (interleaved)', rounds * arms)
    r = await runInterleavedSweep({
      engine: llamacppEngine(), withoutDefaults, backend, candidates: plan.candidates, model: i.modelPath, gate, metric, epsilon, margin, warmups: f.warmup ?? 1, rounds, seed: f.seed ?? 1, test,
      ...(f.timeBudget === undefined ? {} : { timeBudgetMs: f.timeBudget * 1000 }),
      onProgress: (p) => bar.update((p.round - 1) * arms + p.step - 1, `round ${p.round}`),
    })
    bar.done()
  }
  const seconds = (Date.now() - started) / 1000
  if (ctx.json) {
    ctx.printJson({
      ok: true, engine: 'llamacpp', ...r, design, winner: r.winner ?? null,
      model: { path: i.modelPath, bytes: i.modelBytes }, mode: i.mode, space: plan.space, catalog: plan.catalog, pruned: plan.pruned,
      ...(server ? { load: { concurrency: f.concurrency ?? 4, requests: f.requests ?? 8, promptTokens, outputTokens } } : { workload: { promptTokens, genTokens: outputTokens } }),
      seconds,
    })
  } else {
    ctx.io.stdout(isInterleaved(r) ? renderInterleaved(r) : renderSweep(r))
    ctx.io.stdout(`${r.combos.length} combinations measured in ${fmt(seconds, 1)} s; ${plan.pruned.length} removed by rules\n`)
  }
  return r.winner ? 0 : 3
}
