/**
 * Step 1 of the GPU kit: for each synthesized model, the prediction (the pretrained regressor
 * against the device's datasheet roofline, with its 90% interval) next to llama-bench's
 * measurement of the same workload (pp512 and tg128 with every layer on the GPU, as the public
 * data the regressor was trained on was measured).
 */
import { existsSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { detectHardware, specFromDetected } from '@kerneltune/features/node'
import { secondsLeft, skip, writeResult, type KitContext } from './kit-context.ts'
import type { KitModel } from './kit-plan.ts'
import { presetForGpu } from './kit-plan.ts'
import { parseJsonOut, runProc } from './kit-proc.ts'

export interface PhaseFigures {
  readonly predicted: { readonly tps: number; readonly low?: number; readonly high?: number; readonly rooflineTps?: number; readonly capped?: boolean; readonly extrapolation?: readonly string[] } | null
  readonly measured: { readonly tps: number; readonly sd: number; readonly reps: number; readonly samples: readonly number[] } | null
  /** (predicted − measured) / measured. */
  readonly error?: number
  readonly insideInterval?: boolean
}

export interface ModelResult {
  readonly model: KitModel
  readonly file?: { readonly bytes: number; readonly params?: number; readonly activeParams?: number; readonly synthSeconds: number }
  readonly decode?: PhaseFigures
  readonly prefill?: PhaseFigures
  readonly llamaBenchArgv?: readonly string[]
  /** What llama-bench reports of its own run (backends, GPU, flash attention, batch sizes, build). */
  readonly llamaBench?: Readonly<Record<string, unknown>>
  readonly error?: string
}

const BENCH_INFO = ['build_commit', 'build_number', 'backends', 'gpu_info', 'cpu_info', 'model_type', 'model_size', 'model_n_params', 'n_batch', 'n_ubatch', 'n_threads', 'type_k', 'type_v', 'n_gpu_layers', 'flash_attn', 'use_mmap', 'embeddings'] as const

export function benchInfo(rows: unknown): Record<string, unknown> | undefined {
  const first = Array.isArray(rows) ? (rows[0] as Record<string, unknown> | undefined) : undefined
  if (!first) return undefined
  return Object.fromEntries(BENCH_INFO.filter((k) => k in first).map((k) => [k, first[k]]))
}

/** The flags that give `predict` the device: a preset's datasheet when there is one. */
export async function hardwareFlags(ctx: KitContext): Promise<{ flags: string[]; source: string }> {
  const env = process.env
  if (env.KT_KIT_MEM_BW_GBS && env.KT_KIT_TFLOPS) {
    return { flags: ['--mem-bw-gbs', env.KT_KIT_MEM_BW_GBS, '--tflops', env.KT_KIT_TFLOPS], source: 'KT_KIT_MEM_BW_GBS / KT_KIT_TFLOPS' }
  }
  const preset = ctx.device?.gpu ? presetForGpu(ctx.device.gpu.name) : undefined
  if (preset) return { flags: ['--hardware', preset], source: `preset ${preset} (datasheet figures, see kerneltune hardware show ${preset})` }
  // The CPU run: this machine's copy bandwidth and FLOP estimate, as the demo uses.
  const spec = specFromDetected(await detectHardware())
  return { flags: ['--mem-bw-gbs', spec.memBwGbs.toFixed(2), '--tflops', spec.fp16Tflops.toFixed(4)], source: spec.sources.join('; ') }
}

export function compare(predicted: PhaseFigures['predicted'], measured: PhaseFigures['measured']): PhaseFigures {
  if (!predicted || !measured || !(measured.tps > 0)) return { predicted, measured }
  const inside = predicted.low !== undefined && predicted.high !== undefined ? measured.tps >= predicted.low && measured.tps <= predicted.high : undefined
  return { predicted, measured, error: (predicted.tps - measured.tps) / measured.tps, ...(inside === undefined ? {} : { insideInterval: inside }) }
}

interface BenchRow { n_prompt?: number; n_gen?: number; avg_ts?: number; stddev_ts?: number; samples_ts?: number[] }

export function benchFigures(rows: unknown, phase: 'prefill' | 'decode'): PhaseFigures['measured'] {
  if (!Array.isArray(rows)) return null
  const row = (rows as BenchRow[]).find((r) => (phase === 'prefill' ? (r.n_prompt ?? 0) > 0 && !r.n_gen : (r.n_gen ?? 0) > 0 && !r.n_prompt))
  if (!row || typeof row.avg_ts !== 'number') return null
  const samples = row.samples_ts ?? []
  return { tps: row.avg_ts, sd: row.stddev_ts ?? 0, reps: samples.length, samples }
}

/** The model versions `predict --json` named in this run (one, unless the CLI changed mid-run). */
const predictedBy = new Set<string>()

async function predictPhase(ctx: KitContext, file: string, hw: string[], phase: 'decode' | 'prefill', extra: string[]): Promise<PhaseFigures['predicted']> {
  const b = ctx.plan.bench
  const args = [ctx.cli, 'predict', '--gguf', file, ...hw, ...extra, '--json',
    ...(phase === 'prefill' ? ['--phase', 'prefill', '--prompt-tokens', String(b.promptTokens)] : ['--context', String(Math.round(b.genTokens / 2))])]
  const r = await runProc(ctx.node, args, { timeoutMs: 60_000 })
  const j = parseJsonOut(r) as { predictedTps?: number; rooflineTps?: number; capped?: boolean; interval?: { low: number; high: number }; extrapolation?: string[]; modelVersion?: string } | undefined
  if (r.code !== 0 || typeof j?.predictedTps !== 'number') {
    ctx.log(`predict ${phase} failed (exit ${r.code}): ${r.stderrTail.slice(-400)}`)
    return null
  }
  // Which regressor predicted (a CLI before issue 34 does not say).
  predictedBy.add(j.modelVersion ?? 'not reported by this CLI build (predict --json has no modelVersion)')
  return { tps: j.predictedTps, ...(j.interval ? { low: j.interval.low, high: j.interval.high } : {}), ...(j.rooflineTps ? { rooflineTps: j.rooflineTps } : {}), capped: Boolean(j.capped), ...(j.extrapolation ? { extrapolation: j.extrapolation } : {}) }
}

/** `kerneltune model synth` into the work folder; reuses a file a previous attempt completed. */
export async function synthModel(ctx: KitContext, m: KitModel, tiled: boolean): Promise<{ path: string; bytes: number; params?: number; activeParams?: number; seconds: number }> {
  const path = join(ctx.workDir, 'models', `${m.id}.gguf`)
  if (existsSync(path)) return { path, bytes: statSync(path).size, seconds: 0 }
  const args = [ctx.cli, 'model', 'synth', ...m.synthArgs, '--quant', m.quant, '--out', path, '--json', ...(tiled ? ['--fill', 'tiled'] : [])]
  const r = await runProc(ctx.node, args, { timeoutMs: Math.max(30_000, secondsLeft(ctx) * 1000) })
  const j = parseJsonOut(r) as { bytes?: number; params?: number; activeParams?: number } | undefined
  if (r.code !== 0 || !existsSync(path)) throw new Error(`model synth ${m.id} failed (exit ${r.code}): ${r.stderrTail.slice(-600)}`)
  return { path, bytes: j?.bytes ?? statSync(path).size, ...(j?.params ? { params: j.params } : {}), ...(j?.activeParams ? { activeParams: j.activeParams } : {}), seconds: r.seconds }
}

export interface PredictVsMeasureOptions {
  readonly models: readonly KitModel[]
  /** Models to keep on disk afterwards (the serving steps use one). */
  readonly keep: ReadonlySet<string>
  readonly results: ModelResult[]
  /** Whether the CLI has `model synth --fill tiled` and `predict --backend`. */
  readonly tiled: boolean
  readonly predictExtra: readonly string[]
  readonly hardware: { flags: string[]; source: string }
}

/** Runs step 1 over `models`, appending to `results` and rewriting predict-vs-measure.json after each. */
export async function predictVsMeasure(ctx: KitContext, o: PredictVsMeasureOptions): Promise<void> {
  const b = ctx.plan.bench
  const gpu = ctx.plan.mode === 'cuda'
  // The next model is written while llama-bench measures this one (disk and CPU against the GPU).
  let next: Promise<Awaited<ReturnType<typeof synthModel>>> | undefined
  for (let i = 0; i < o.models.length; i++) {
    const m = o.models[i]!
    // A model needs its synthesis, two predictions and llama-bench: leave them time or skip.
    const need = gpu ? 45 : 20
    if (secondsLeft(ctx) < need) {
      for (const rest of o.models.slice(i)) skip(ctx, 'predict-vs-measure', rest.id, `under ${need} s of the time budget left`)
      break
    }
    ctx.log(`model ${m.id}: synthesizing, predicting, measuring`)
    try {
      const synth = await (next ?? synthModel(ctx, m, o.tiled))
      next = o.models[i + 1] ? synthModel(ctx, o.models[i + 1]!, o.tiled) : undefined
      next?.catch(() => undefined)
      const [decodeP, prefillP] = [await predictPhase(ctx, synth.path, o.hardware.flags, 'decode', [...o.predictExtra]), await predictPhase(ctx, synth.path, o.hardware.flags, 'prefill', [...o.predictExtra])]
      const argv = ['-m', synth.path, '-p', String(b.promptTokens), '-n', String(b.genTokens), '-r', String(b.reps), '-o', 'json', '-ngl', gpu ? '999' : '0', ...(gpu ? [] : ['-t', String(ctx.threads)])]
      const bench = await runProc(join(ctx.binDir, 'llama-bench'), argv, { timeoutMs: Math.max(20_000, Math.min(180_000, secondsLeft(ctx) * 1000)) })
      const rows = parseJsonOut(bench)
      if (bench.code !== 0) ctx.log(`llama-bench ${m.id} exit ${bench.code}${bench.timedOut ? ' (timed out)' : ''}: ${bench.stderrTail.slice(-600)}`)
      o.results.push({
        model: m,
        file: { bytes: synth.bytes, ...(synth.params ? { params: synth.params } : {}), ...(synth.activeParams ? { activeParams: synth.activeParams } : {}), synthSeconds: synth.seconds },
        decode: compare(decodeP, benchFigures(rows, 'decode')),
        prefill: compare(prefillP, benchFigures(rows, 'prefill')),
        // Verbatim, the binary's and the model's full paths included (issue 34: no paraphrase).
        llamaBenchArgv: [join(ctx.binDir, 'llama-bench'), ...argv],
        ...(benchInfo(rows) ? { llamaBench: benchInfo(rows)! } : {}),
        ...(bench.code === 0 ? {} : { error: `llama-bench exit ${bench.code}: ${bench.stderrTail.slice(-300)}` }),
      })
      if (!o.keep.has(m.id)) rmSync(synth.path, { force: true })
    } catch (e) {
      o.results.push({ model: m, error: (e as Error).message })
      ctx.log(`model ${m.id}: ${(e as Error).message}`)
    }
    writeResult(ctx, 'predict-vs-measure.json', {
      step: 'predict-vs-measure',
      measured: 'llama-bench (the CLI tool of the same llama.cpp build): prefill tok/s over pp prompt tokens and decode tok/s over tg generated tokens, reps each, every layer offloaded',
      predicted: `kerneltune predict (the pretrained regressor, a prediction, not a measurement) with ${o.hardware.source}`,
      predictedBy: [...predictedBy],
      bench: b,
      models: o.results,
    })
  }
  await next?.catch(() => undefined)
}
