/**
 * `kerneltune sweep --engine llamacpp --gguf FILE [--quick]`: a Tier 1 sweep over llama.cpp
 * settings on this machine, from the embedded defaults (no server needed). The catalog enumerates
 * the sweep space with the engine's legality rules, every legal combination is measured for real
 * against llama-server's defaults, and the winner comes with its statistics and command line.
 */
import { resolve } from 'node:path'
import { createCatalog } from '@kerneltune/catalog'
import { formatCommandLine, KerneltuneError, type Combo, type HardwareSpec } from '@kerneltune/core'
import { requireGgufFile } from './shared/target-flags.ts'
import {
  SWEEP_GATE_DEFAULTS,
  SWEEP_METRICS,
  runSweep,
  sweepExtension,
  sweepSpace,
  withoutDefaults,
  type SweepMetric,
  type SweepMode,
  type SweepProgress,
  type SweepResult,
  type SweepSpace,
} from '@kerneltune/engines-llamacpp'
import { llamacppBackend } from '@kerneltune/engines-llamacpp/node'
import { GATE_METHODS, type GateMethod } from '@kerneltune/stats'
import type { Io } from '../cli/command.ts'
import { defineCommand } from '../cli/command.ts'
import { fmt, progressBar, table } from '../cli/output.ts'
import { runServerOrInterleaved } from './sweep-server-run.ts'

/** Per-mode run lengths: quick is sized for a tiny model on 2 cores in 1–2 minutes. */
export const SWEEP_DEFAULTS = {
  quick: { promptTokens: 64, genTokens: 16, minReps: 3, maxReps: 4 },
  standard: { promptTokens: 128, genTokens: 32, minReps: 3, maxReps: 8 },
} as const

export interface SweepPlan {
  readonly mode: SweepMode
  readonly space: SweepSpace
  readonly candidates: readonly { readonly combo: Combo; readonly hash: string }[]
  readonly pruned: readonly { readonly combo: Combo; readonly rule: string }[]
  readonly catalog: { readonly version: string; readonly hash: string }
}

/** Enumerates the sweep space through the catalog, with llama.cpp's legality rules. */
export function planSweep(mode: SweepMode, hardware: HardwareSpec, logicalCores: number, override?: SweepSpace): SweepPlan {
  const space = sweepSpace(mode, logicalCores, override)
  const catalog = createCatalog({ extensions: [{ engine: 'llamacpp', extension: sweepExtension(space) }] })
  const preview = catalog.preview({ hardware, engine: 'llamacpp' }, { mode: 'quick' })
  return {
    mode,
    space,
    // The combination that spells out the defaults is the baseline itself, measured once.
    candidates: preview.legal.filter((l) => Object.keys(withoutDefaults(l.combo)).length > 0).map((l) => ({ combo: l.combo, hash: l.hash })),
    pruned: preview.pruned.map((p) => ({ combo: p.combo, rule: p.rule })),
    catalog: { version: catalog.version, hash: catalog.hash },
  }
}

export interface SweepRunOptions {
  readonly modelPath: string
  readonly plan: SweepPlan
  readonly gpu?: false | 'auto' | 'cuda' | 'vulkan'
  readonly promptTokens: number
  readonly genTokens: number
  readonly warmups: number
  readonly minReps: number
  readonly maxReps: number
  readonly earlyStop: boolean
  readonly noiseFloor: number
  readonly gate: GateMethod
  readonly metric: SweepMetric
  readonly epsilon: number
  readonly margin: number
  /** Told of every step after the progress bar (the demo times the defaults' measurement apart from the sweep). */
  readonly onProgress?: (p: SweepProgress) => void
}

/** `--space` JSON: dimension → list of values (checked against the catalog by sweepSpace). */
export function parseSpace(json: string): SweepSpace {
  let v: unknown
  try {
    v = JSON.parse(json)
  } catch {
    throw new KerneltuneError('INVALID_INPUT', `--space is not JSON: ${json}`)
  }
  const ok = typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => Array.isArray(x) && x.every((y) => typeof y === 'string'))
  if (!ok) throw new KerneltuneError('INVALID_INPUT', `--space must map dimensions to lists of string values, e.g. {"threads":["1","2"]}; got ${json}`)
  return v as SweepSpace
}

const label = (c: Combo) => {
  const s = Object.entries(withoutDefaults(c)).map(([k, v]) => `${k}=${v}`).join(' ')
  return s || '(defaults)'
}

/** Measures the plan with a progress bar on stderr (one step per combination, baseline first). */
export async function executeSweep(io: Io, o: SweepRunOptions): Promise<SweepResult> {
  const backend = llamacppBackend({ modelPath: o.modelPath, gpu: o.gpu ?? false, promptTokens: o.promptTokens, genTokens: o.genTokens })
  const bar = progressBar(io, 'sweep', o.plan.candidates.length + 1)
  const result = await runSweep({
    backend,
    candidates: o.plan.candidates,
    model: o.modelPath,
    warmups: o.warmups,
    minReps: o.minReps,
    maxReps: o.maxReps,
    earlyStop: o.earlyStop,
    noiseFloor: o.noiseFloor,
    gate: o.gate,
    metric: o.metric,
    epsilon: o.epsilon,
    margin: o.margin,
    onProgress: (p) => (bar.update(p.index + (p.done ? 1 : 0), `${label(p.combo)} (${p.reps} reps)`), o.onProgress?.(p)),
  })
  bar.done()
  return result
}

const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '-' : `${x >= 0 ? '+' : ''}${fmt(x * 100, 1)}%`)

/** The human report: every combination against the defaults, then the winner and its command line. */
export function renderSweep(r: SweepResult): string {
  const m = r.metric
  const rows = [...r.combos]
    .sort((a, b) => (b.stats[m]?.trimmedMean ?? -Infinity) - (a.stats[m]?.trimmedMean ?? -Infinity))
    .map((c) => {
      const cmp = c.comparison[m]
      return [
        label(c.combo),
        c.error ? 0 : c.reps.length,
        c.error ? `failed: ${c.error.slice(0, 60)}` : fmt(c.stats.decodeTps?.trimmedMean ?? NaN),
        pct(c.comparison.decodeTps?.improvement),
        cmp ? cmp.welch.pValue.toPrecision(2) : '-',
        cmp ? fmt(cmp.cohensD, 2) : '-',
        fmt(c.stats.prefillTps?.trimmedMean ?? NaN),
        pct(c.comparison.prefillTps?.improvement),
        c.gate ? (c.gate.passed ? 'pass' : c.gate.status) : '-',
      ]
    })
  const b = r.baseline.stats
  let out = `device: ${r.device}\n`
  out += `baseline (llama-server defaults): decode ${fmt(b.decodeTps?.trimmedMean ?? NaN)} tok/s, prefill ${fmt(b.prefillTps?.trimmedMean ?? NaN)} tok/s (trimmed means of ${r.baseline.reps.length} reps)\n\n`
  out += table(rows, ['combination', 'reps', 'decode tok/s', 'vs default', `p (${m})`, 'd', 'prefill tok/s', 'vs default', `gate (${r.gate.method})`])
  out += `\n${r.winner ? `winner: ${label(r.winner.combo)}: ${r.verdict}` : `no winner: ${r.verdict}`}\n`
  out += `recommended: ${formatCommandLine({ argv: r.recommendedArgv })}\n`
  return out
}

export const sweepCommand = defineCommand({
  name: 'sweep',
  summary: 'Sweep llama.cpp settings on this machine for real, with statistics against the defaults and a quality gate.',
  description:
    'Enumerates llama.cpp settings through the catalog (with the engine\'s legality rules), measures the defaults and then every legal combination through node-llama-cpp, with warm-ups, repetitions and early termination, compares each to the defaults (10% trimmed means, Welch/Yuen test, Cohen\'s d) on decode and prefill tokens/s and time to first token, applies a quality gate and names the winner: the fastest combination (by --metric) that passes the gate and is significantly better than the defaults. Quick mode sweeps threads x flash attention x V cache type; standard adds the micro-batch and K cache type. The default gate is regression: no gated metric may be worse than the defaults by more than --epsilon.',
  flags: [
    { name: 'engine', type: 'string', description: 'Engine to sweep.', choices: ['llamacpp'], default: 'llamacpp' },
    { name: 'gguf', type: 'string', description: 'The GGUF model file.', valueName: 'FILE' },
    { name: 'quick', type: 'boolean', description: 'Quick mode: a small space and short runs (1–2 minutes for a small model on 2 cores).' },
    { name: 'space', type: 'string', description: 'Replace dimensions of the space, as JSON: {"threads":["1","2"]}.', valueName: 'JSON' },
    { name: 'metric', type: 'string', description: 'Metric that ranks combinations.', choices: SWEEP_METRICS, default: 'decodeTps' },
    { name: 'gate', type: 'string', description: 'Quality gate.', choices: GATE_METHODS, default: SWEEP_GATE_DEFAULTS.gate },
    { name: 'epsilon', type: 'number', description: 'regression gate: largest worsening allowed on any metric.', default: SWEEP_GATE_DEFAULTS.epsilon, min: 0 },
    { name: 'margin', type: 'number', description: 'topk5 gate: improvement required.', default: SWEEP_GATE_DEFAULTS.margin, min: 0 },
    { name: 'reps', type: 'integer', description: 'Repetitions per combination at most (quick 4, standard 8).', min: 2, max: 1000 },
    { name: 'min-reps', type: 'integer', description: 'Repetitions before early termination may stop a combination.', min: 2, max: 1000 },
    { name: 'warmup', type: 'integer', description: 'Warm-up repetitions per combination.', default: 1, min: 0, max: 100 },
    { name: 'noise-floor', type: 'number', description: 'Early termination: interval width (fraction of the value) counted as tight.', default: 0.05, min: 0.001, max: 1 },
    { name: 'no-early-stop', type: 'boolean', description: 'Measure every combination to --reps.' },
    { name: 'prompt-tokens', type: 'integer', description: 'Prompt length per repetition (quick 64, standard 128).', min: 1 },
    { name: 'gen-tokens', type: 'integer', description: 'Tokens generated per repetition (quick 16, standard 32).', min: 2 },
    { name: 'gpu', type: 'string', description: 'llama.cpp build: off (CPU), auto, cuda, vulkan.', choices: ['off', 'auto', 'cuda', 'vulkan'], default: 'off' },
    { name: 'backend', type: 'string', description: 'node-llama-cpp: llama.cpp in-process, one request at a time. server: a real llama-server per combination under concurrent streaming load (adds slots and continuous batching to the space).', choices: ['node-llama-cpp', 'server'], default: 'node-llama-cpp' },
    { name: 'design', type: 'string', description: 'sequential: the defaults first, then each combination. interleaved: every combination once per round in a random order, paired against the defaults by round, with an A/A check (default with --backend server).', choices: ['sequential', 'interleaved'] },
    { name: 'rounds', type: 'integer', description: 'Interleaved: rounds at most (quick 8, standard 12; the sign-flip test needs 7 to decide).', min: 2, max: 1000 },
    { name: 'time-budget', type: 'number', description: 'Interleaved: after 2 rounds, start no measurement that would end after this many seconds (the last round counts as far as it got).', min: 1 },
    { name: 'concurrency', type: 'integer', description: 'Server: requests in flight (closed loop).', default: 4, min: 1, max: 1024 },
    { name: 'requests', type: 'integer', description: 'Server: measured requests per repetition.', default: 8, min: 1, max: 100000 },
    { name: 'seed', type: 'integer', description: 'Interleaved: seed of the round orders.', default: 1, min: 0 },
    { name: 'test', type: 'string', description: 'Interleaved: how a combination is compared with the defaults of the same rounds. sign-flip: the 20% trimmed mean of its log ratios with a randomization p-value, exact (all 2^n sign patterns) up to 14 rounds and resampled from 10,000 patterns past them (robust to wild measurements; needs 7 rounds to decide). paired: a t-test on their mean. blocked: the noise pooled over every combination (more power in few rounds, but it assumes every combination is as noisy as the defaults, which a loaded CPU breaks).', choices: ['sign-flip', 'paired', 'blocked'], default: 'sign-flip' },
  ],
  examples: [
    'kerneltune model synth --params 15M --quant Q8_0 --vocab-size 2048 --out /tmp/m.gguf && kerneltune sweep --engine llamacpp --gguf /tmp/m.gguf --quick',
    'kerneltune sweep --engine llamacpp --gguf /tmp/m.gguf --backend server --quick --concurrency 4',
    'kerneltune sweep --gguf m.gguf --gate topk5 --reps 10 --json',
    'kerneltune sweep --gguf m.gguf --quick --space \'{"threads":["1","2"],"cache_type_k":["f16","q8_0"]}\'',
  ],
  jsonOutput:
    'With --backend server or --design interleaved: { ok, engine, backend, design: "interleaved", device, rounds, partialRound, order, metric, baseline, combos: [{ combo, reps, error?, stats, comparison, paired: { decodeTps?, prefillTps?, ttftMs? } }], aa: { comparison, declaredWinner, falseWinnerRate, resamples, reps }, winner | null, verdict, recommendedArgv, load: { concurrency, requests, promptTokens, outputTokens }, settings, seconds, ... }. Otherwise: { ok, engine: "llamacpp", measured: true, simulated: false, device, model: { path, bytes }, mode, space, catalog: { version, hash }, pruned: [{ combo, rule }], workload: { promptTokens, genTokens }, settings: { warmups, minReps, maxReps, earlyStop, noiseFloor }, metric, baseline: { combo, hash, reps, stats }, combos: [{ combo, hash, reps, stoppedEarly?, error?, stats, comparison: { decodeTps?, prefillTps?, ttftMs? }, gate }], gate: GateResult, winner: { combo, hash, reps, stats, comparison, gate, llamaServerArgv } | null, verdict, recommendedArgv, notes, seconds }',
  async run(ctx) {
    const f = ctx.flags
    const { path: modelPath, bytes: modelBytes } = await requireGgufFile(ctx.io, f.gguf, 'sweep')
    const override = f.space ? parseSpace(f.space) : undefined
    const mode: SweepMode = f.quick ? 'quick' : 'standard'
    const d = SWEEP_DEFAULTS[mode]
    const { detectHardware, specFromDetected } = await import('@kerneltune/features/node')
    const detected = await detectHardware()
    if (f.backend === 'server' || f.design === 'interleaved') return runServerOrInterleaved(ctx, { modelPath, modelBytes, mode, override, hardware: specFromDetected(detected), cores: detected.cpu.threads })
    const plan = planSweep(mode, specFromDetected(detected), detected.cpu.threads, override)
    const started = Date.now()
    const maxReps = f.reps ?? d.maxReps
    const o: SweepRunOptions = {
      modelPath,
      plan,
      gpu: f.gpu === 'off' || f.gpu === undefined ? false : (f.gpu as 'auto' | 'cuda' | 'vulkan'),
      promptTokens: f.promptTokens ?? d.promptTokens,
      genTokens: f.genTokens ?? d.genTokens,
      warmups: f.warmup ?? 1,
      minReps: Math.min(maxReps, f.minReps ?? d.minReps),
      maxReps,
      earlyStop: f.noEarlyStop !== true,
      noiseFloor: f.noiseFloor ?? 0.05,
      gate: (f.gate ?? SWEEP_GATE_DEFAULTS.gate) as GateMethod,
      metric: (f.metric ?? 'decodeTps') as SweepMetric,
      epsilon: f.epsilon ?? SWEEP_GATE_DEFAULTS.epsilon,
      margin: f.margin ?? SWEEP_GATE_DEFAULTS.margin,
    }
    ctx.io.stderr(`sweeping ${plan.candidates.length} combinations (${plan.pruned.length} removed by llama.cpp's rules) against the defaults, ${mode} mode\n`)
    const r = await executeSweep(ctx.io, o)
    const seconds = (Date.now() - started) / 1000
    if (ctx.json) {
      ctx.printJson({
        ok: true,
        engine: 'llamacpp',
        ...r,
        winner: r.winner ?? null,
        model: { path: modelPath, bytes: modelBytes },
        mode,
        space: plan.space,
        catalog: plan.catalog,
        pruned: plan.pruned,
        workload: { promptTokens: o.promptTokens, genTokens: o.genTokens },
        seconds,
      })
    } else {
      ctx.io.stdout(renderSweep(r))
      ctx.io.stdout(`${r.combos.length} combinations measured in ${fmt(seconds, 1)} s; ${plan.pruned.length} removed by rules (${[...new Set(plan.pruned.map((p) => p.rule))].join(', ') || 'none'})\n`)
    }
    // Exit 3 (a gate did not pass) when nothing beats the defaults: the recommendation is then no change.
    return r.winner ? 0 : 3
  },
})
