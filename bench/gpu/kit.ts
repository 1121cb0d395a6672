/**
 * The GPU evidence kit's driver (issue 28), bundled by tooling/scripts/pack-device.sh into kit.mjs
 * and run by bench/gpu/run.sh after llama-server and llama-bench are built. It measures in an
 * order that gives every step figures before the budget runs out: step 1 on the Q4_0 models, then
 * bench serve (step 3), then the serving sweep (step 2), then step 1 on the larger formats.
 * Everything it writes goes to --out as it goes, so a run cut short still returns its figures.
 *
 *   node kit.mjs --cli kerneltune.mjs --bin-dir BUILD/bin --out OUT --work WORK --mode cuda|cpu
 *     --budget-s SECONDS [--manifest MANIFEST.json] [--build-info build-info.json]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join, resolve } from 'node:path'
import { z } from 'zod'
import { secondsLeft, skip, writeResult, type KitContext } from './kit-context.ts'
import { deviceIdentity } from './kit-env.ts'
import { hardwareFlags, predictVsMeasure, synthModel, type ModelResult } from './kit-models.ts'
import { kitPlan } from './kit-plan.ts'
import { kitLogger } from './kit-proc.ts'
import { runArgv } from './kit-provenance.ts'
import { renderSummary, servingLines } from './kit-report.ts'
import { cliHas, serveLevels, servingSweep } from './kit-serving.ts'

const Args = z.object({
  cli: z.string().min(1),
  'bin-dir': z.string().min(1),
  out: z.string().min(1),
  work: z.string().min(1),
  mode: z.enum(['cuda', 'cpu']),
  'budget-s': z.coerce.number().positive(),
  manifest: z.string().optional(),
  'build-info': z.string().optional(),
})

export function parseKitArgs(argv: readonly string[]): z.infer<typeof Args> {
  const raw: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (!a.startsWith('--') || argv[i + 1] === undefined) throw new Error(`kit: expected --name value pairs, got '${a}'`)
    raw[a.slice(2)] = argv[++i]!
  }
  const parsed = Args.safeParse(raw)
  if (!parsed.success) throw new Error(`kit: ${parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; ')}`)
  return parsed.data
}

export async function kitMain(argv: readonly string[]): Promise<number> {
  let a: z.infer<typeof Args>
  try {
    a = parseKitArgs(argv)
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`)
    return 2
  }
  const outDir = resolve(a.out)
  const workDir = resolve(a.work)
  mkdirSync(outDir, { recursive: true })
  mkdirSync(join(workDir, 'models'), { recursive: true })
  const threads = cpus().length
  const ctx: KitContext = {
    plan: kitPlan(a.mode),
    node: process.execPath,
    cli: resolve(a.cli),
    binDir: resolve(a['bin-dir']),
    outDir,
    workDir,
    deadline: Date.now() + a['budget-s'] * 1000,
    threads,
    log: kitLogger(join(outDir, 'kit.log')),
    skipped: [],
    argv: runArgv(process.argv, process.env),
  }
  ctx.device = await deviceIdentity(ctx, a.manifest ?? '', a['build-info'] ?? '')
  writeResult(ctx, 'env.json', { step: 'env', plan: { ...ctx.plan, serve: { ...ctx.plan.serve, requests: ctx.plan.serve.concurrency.map((c) => ctx.plan.serve.requests(c)) } }, budgetS: a['budget-s'] })
  ctx.log(`device: ${ctx.device.gpu?.name ?? ctx.device.cpu.model}; ${Math.round(secondsLeft(ctx))} s of budget`)

  const tiled = await cliHas(ctx, ['model', 'synth'], '--fill')
  const backendFlag = await cliHas(ctx, ['predict'], '--backend')
  const predictExtra = backendFlag ? ['--backend', a.mode === 'cuda' ? 'cuda' : 'cpu'] : []
  if (!tiled) ctx.log('this CLI has no `model synth --fill tiled`: synthesis generates every weight (slower)')
  if (!backendFlag) skip(ctx, 'predict-vs-measure', 'the backend in the query', 'this CLI has no `predict --backend`')
  const hardware = await hardwareFlags(ctx)
  const results: ModelResult[] = []
  const byId = (id: string) => ctx.plan.models.find((m) => m.id === id)!
  // KT_KIT_STEPS=sweep (say) reruns one step on a machine that already holds the build.
  const steps = new Set((process.env.KT_KIT_STEPS ?? 'models,serve,sweep').split(',').map((x) => x.trim()))
  // Files the serving steps load stay on disk; with those steps off, every file goes after its
  // measurement (the larger formats need the room).
  const keep = new Set([...(steps.has('serve') ? [ctx.plan.serveModel] : []), ...(steps.has('sweep') ? [ctx.plan.sweepModel] : [])])
  const first = ctx.plan.models.filter((m) => m.quant === 'Q4_0')
  const rest = ctx.plan.models.filter((m) => m.quant !== 'Q4_0')

  if (steps.has('models')) await predictVsMeasure(ctx, { models: first, keep, results, tiled, predictExtra, hardware })
  const pathOf = async (id: string, step: string): Promise<string | undefined> => {
    try {
      return (await synthModel(ctx, byId(id), tiled)).path
    } catch (e) {
      skip(ctx, step, 'the whole step', `its model ${id} could not be written: ${(e as Error).message}`)
      return undefined
    }
  }
  const servePath = steps.has('serve') ? await pathOf(ctx.plan.serveModel, 'bench-serve') : undefined
  if (servePath) await serveLevels(ctx, servePath)
  const sweepPath = steps.has('sweep') ? await pathOf(ctx.plan.sweepModel, 'serving-sweep') : undefined
  // The sweep gets what is left but a share for the larger formats of step 1.
  if (sweepPath) await servingSweep(ctx, sweepPath, secondsLeft(ctx) - (ctx.plan.mode === 'cuda' && steps.has('models') ? 120 : 0))
  if (steps.has('models')) await predictVsMeasure(ctx, { models: rest, keep: new Set(), results, tiled, predictExtra, hardware })

  const read = (f: string) => (existsSync(join(outDir, f)) ? JSON.parse(readFileSync(join(outDir, f), 'utf8')) : undefined)
  const summary = renderSummary(ctx, results, servingLines(read('serving-sweep.json'), read('bench-serve.json')))
  writeFileSync(join(outDir, 'summary.md'), summary)
  writeResult(ctx, 'env.json', { step: 'env', plan: read('env.json')?.plan, budgetS: a['budget-s'], skipped: ctx.skipped, finishedWithSecondsLeft: Math.round(secondsLeft(ctx)) })
  process.stdout.write(summary)
  const measuredAny = results.some((r) => r.decode?.measured || r.prefill?.measured)
  return measuredAny ? 0 : 1
}
