/** Renders docs/prediction-vs-measurement.md from a predict-vs-measure.ts result. */
import type { ReportPoint } from './predict-vs-measure-point.ts'
import { intervalWidthText, type PhaseErrors } from './predict-vs-measure-table.ts'

interface DocInput {
  readonly date: string
  readonly command: string
  readonly predictor: { readonly name: string; readonly modelKind?: string; readonly description?: string; readonly scriptVersion?: string; readonly trainedOn: readonly string[]; readonly sampleCount: number }
  readonly calibration: {
    readonly method: string; readonly factors: Record<string, number>; readonly overheadFactors?: Record<string, number | undefined>
    readonly formatFactors?: Record<string, Record<string, number> | undefined>; readonly calibratedOn: readonly string[]
  }
  readonly measuredAt?: string
  readonly predictedAt?: string
  readonly hardware: {
    readonly detected: { cpu: { model: string; cores: number; threads: number; ramGb: number } }
    readonly spec: { memBwGbs: number; fp16Tflops: number; sources: readonly string[] }
    readonly query: { memBwGbs: number; tflops: number; unifiedMemory: boolean; vendor: string }
  }
  readonly device?: string
  readonly workload: { readonly promptTokens: number; readonly genTokens: number; readonly combo: Record<string, unknown>; readonly reps: number; readonly warmups: number }
  /** Load average (1, 5, 15 min) when the measurement started and ended, when recorded. */
  readonly load?: { readonly before: readonly number[]; readonly after: readonly number[] }
  readonly points: readonly unknown[]
  readonly errors: { decode: PhaseErrors; prefill: PhaseErrors }
}

const pct = (x: number | undefined) => (x === undefined ? '–' : `${(x * 100).toFixed(1)}%`)

/** The "how to read it" section (the physics model, v2 of the training script and later). */
function reading(r: DocInput): string {
  const e = r.errors
  const n = r.points.length
  const q = r.hardware.query
  return `## How to read it

The predictor is the physics model: the time of one step is the weight bytes and KV bytes over the
bandwidth, the FLOPs over the FLOP rate, the activation traffic, a dequantization cost per weight,
and a fixed cost per layer and per step, each with a multiplier learned from public llama.cpp
measurements per hardware class, vendor, weight format and build age. Its training data hold CPU rows
(Apple CPU clusters running llama.cpp) but nothing this small: its smallest models have 3–4B
parameters, the ones here 15M–250M, where the fixed costs weigh most. A CPU has no kernel launches,
so its per-layer and per-step costs have their own multipliers, which no training row pins down and
which therefore keep their physical prior (10 µs per layer, 100 µs per step). It is given this
machine's probed copy bandwidth (${q.memBwGbs.toFixed(1)} GB/s, one thread), the FLOP rate of the cores llama.cpp was
given (${q.tflops.toFixed(3)} TFLOPS), the device kind (CPU) and each model's shapes (layers, KV bytes and
attention FLOPs per context token). Its decode multiplies quantized weights at a CPU's int8
dot-product rate (4× that FP32 figure: AVX-VNNI / AVX512-VNNI or ARM SDOT instructions), its prefill at
the FP32 rate: the only CPU prefill rows it learned from (2023 builds) ran BLAS on dequantized weights,
so nothing it saw measures a current build's int8 matrix kernels, and those differ by format (see the
Q4_0 and Q8_0 prefill errors below).

**Before calibration** it is off by ${pct(e.decode.allBefore)} (decode) and ${pct(e.prefill.allBefore)} (prefill)
on average over the ${n} models (held-out sizes: ${pct(e.decode.heldOutBefore)} and ${pct(e.prefill.heldOutBefore)}),
with ${e.decode.cappedBefore} of ${n} decode and ${e.prefill.cappedBefore} of ${n} prefill predictions capped by the roofline bound (see the table for
the sign of each error: where it is one-sided, the pretrained model is conservative here). The 90%
interval (from the model's leave-one-hardware-out residuals, which describe GPUs and Apple CPUs running
3–70B models with older builds) contained the measurement for ${e.decode.insideInterval ?? '–'} of ${n} decode${intervalWidthText(r.points as readonly ReportPoint[], 'decode')} and ${e.prefill.insideInterval ?? '–'} of ${n} prefill
points${intervalWidthText(r.points as readonly ReportPoint[], 'prefill')}: it does not describe an x86 CPU running a current build, which no training row is.

**Calibration** (three sizes, both weight types, once per phase) fits multipliers on log time as a
posterior mode with the pretrained model as the prior: on the bandwidth and compute times, one per weight
format around a shared one (a machine's kernels differ by format: here Q4_0 prefilled about twice as fast
as Q8_0, llama.cpp's CPU backend repacking Q4_0 weights for its x86 int8 matrix kernels), and on the per-layer and per-step
overheads; a multiplier the measurements barely see (the overheads of prefill) stays near 1. The prior's
width (or one factor on the whole time instead) is chosen by the leave-one-out error over the calibration
points alone. On the held-out sizes the error goes to ${pct(e.decode.heldOutAfter)} (decode) and ${pct(e.prefill.heldOutAfter)} (prefill).
What remains is what these multipliers cannot explain (cache effects of the smallest models) and the
noise of a shared machine: see the 95% intervals of the measurements. The held-out figures are the ones
to quote; the leave-one-out figures are over the calibration sizes themselves.
`
}

export function renderDoc(r: DocInput, table: string): string {
  const cpu = r.hardware.detected.cpu
  const q = r.hardware.query
  const n = r.points.length
  const e = r.errors
  return `# Prediction against measurement (llama.cpp, this machine)

Produced by a script in the repo; every "measured" number is a real llama.cpp run, every
"predicted" number is computed. Reproduce with:

\`\`\`sh
${r.command}
\`\`\`

It writes \`bench/results/llamacpp-predict-vs-measure.json\` (every point with its query, the
hardware, the corrections) and this file. Synthetic llama models (random weights: meaningless text,
real speed) of each size and weight type are written, predicted, measured and deleted one at a time.

- **Date:** ${r.measuredAt ? `measured ${r.measuredAt}; predictions recomputed ${r.predictedAt} with the current model (\`--repredict\`: the measurements are those of the earlier run)` : r.date}
- **Machine:** ${cpu.model}, ${cpu.cores} cores / ${cpu.threads} threads, ${cpu.ramGb.toFixed(1)} GiB RAM, no GPU
- **Measured on:** ${r.device ?? 'n/a'}
- **Hardware from \`detectHardware\` / \`specFromDetected\`:** ${r.hardware.spec.memBwGbs.toFixed(1)} GB/s, ${r.hardware.spec.fp16Tflops.toFixed(3)} TFLOPS (${r.hardware.spec.sources.join('; ')})
- **Query given to the regressor:** memBwGbs ${q.memBwGbs.toFixed(1)}, tflops ${q.tflops.toFixed(3)}, unifiedMemory ${q.unifiedMemory} (the CPU reads the weights from system RAM), vendor \`${q.vendor}\`${(q as { device?: string }).device ? `, device \`${(q as { device?: string }).device}\` and each model's shapes (layers, KV bytes and attention FLOPs per context token)` : ''}; batch 1; decode at context ${r.workload.promptTokens + r.workload.genTokens / 2} (the middle of the generated run), prefill of a ${r.workload.promptTokens}-token prompt.
- **Workload:** ${r.workload.promptTokens} prompt tokens, ${r.workload.genTokens} generated (greedy), settings ${JSON.stringify(r.workload.combo)}, ${r.workload.warmups} warm-up and ${r.workload.reps} measured repetitions per model; measured values are 10% trimmed means.
- **Predictor:** \`pretrainedModel()\` of \`@kerneltune/regressor\` (\`${r.predictor.name}\`${r.predictor.scriptVersion ? ` from training script ${r.predictor.scriptVersion}` : ''}: ${(r.predictor.description ?? 'ridge regression on log(measured ÷ roofline bound)').replace(/\.$/, '')}; ${r.predictor.sampleCount} public llama.cpp measurements on ${r.predictor.trainedOn.length} devices). Its output is capped by the roofline bound, shown as its own column.
- **Calibration:** \`calibrate(pretrainedModel(), measurements)\` of the same package, fitted on ${r.calibration.calibratedOn.join(', ')} (both weight types) and **once per phase**: \`calibrate\` keys its correction on the hardware (bandwidth and TFLOPS) only, so a joint fit would average the decode and prefill shortfalls. Corrections (work time ÷ factor, overhead time × overhead factor): ${Object.entries(r.calibration.factors).map(([k, v]) => {
    const byFormat = r.calibration.formatFactors?.[k]
    const work = byFormat ? Object.entries(byFormat).map(([q, x]) => `${q} ×${x.toFixed(3)}`).join(', ') : `×${v.toFixed(3)}`
    return `${k} ${work}${r.calibration.overheadFactors?.[k] !== undefined ? `, overheads ×${r.calibration.overheadFactors[k]!.toFixed(3)}` : ''}`
  }).join('; ')} (applied to the regressor's uncapped output, then capped again).

${table}

Errors are (predicted − measured) ÷ measured. ${r.load ? `Load average when the measurement started: ${r.load.before.map((x) => x.toFixed(2)).join(' / ')} (1 / 5 / 15 min), when it ended: ${r.load.after.map((x) => x.toFixed(2)).join(' / ')}. ` : 'No load average was recorded for this measurement. '}The machine is shared with other work, so runs vary;
the 95% intervals show the spread of the repetitions. Part of the error after calibration is that
noise, not the predictor.

${reading(r)}`
}
