/** Renders docs/prediction-vs-measurement.md from a predict-vs-measure.ts result. */
import type { PhaseErrors } from './predict-vs-measure-table.ts'

interface DocInput {
  readonly date: string
  readonly command: string
  readonly predictor: { readonly name: string; readonly modelKind?: string; readonly description?: string; readonly scriptVersion?: string; readonly trainedOn: readonly string[]; readonly sampleCount: number }
  readonly calibration: { readonly method: string; readonly factors: Record<string, number>; readonly overheadFactors?: Record<string, number | undefined>; readonly calibratedOn: readonly string[] }
  readonly measuredAt?: string
  readonly predictedAt?: string
  readonly hardware: {
    readonly detected: { cpu: { model: string; cores: number; threads: number; ramGb: number } }
    readonly spec: { memBwGbs: number; fp16Tflops: number; sources: readonly string[] }
    readonly query: { memBwGbs: number; tflops: number; unifiedMemory: boolean; vendor: string }
  }
  readonly device?: string
  readonly workload: { readonly promptTokens: number; readonly genTokens: number; readonly combo: Record<string, unknown>; readonly reps: number; readonly warmups: number }
  readonly points: readonly unknown[]
  readonly errors: { decode: PhaseErrors; prefill: PhaseErrors }
}

const pct = (x: number | undefined) => (x === undefined ? '–' : `${(x * 100).toFixed(1)}%`)

/** The "how to read it" section for the physics model (v2 of the training script). */
function physicsReading(r: DocInput): string {
  const e = r.errors
  const n = r.points.length
  return `${r.predictor.modelKind === 'physics' ? physicsReading(r) : `## How to read it

The predictor is the physics model: the time of one step is the weight bytes and KV bytes over the
bandwidth, the FLOPs over the FLOP rate, a dequantization cost per weight, and a fixed cost per layer
and per step, each with a multiplier learned from public llama.cpp measurements per hardware class,
vendor and weight format. Its training data now holds CPU rows (Apple CPU clusters running llama.cpp)
but nothing this small: its smallest models have 3–4B parameters, the ones here 15M–250M, where the
per-layer and per-step costs weigh most. It is given this machine's probed copy bandwidth and estimated
FLOP rate, the device kind (CPU) and each model's layer count.

**Before calibration** it is off by ${pct(e.decode.allBefore)} (decode) and ${pct(e.prefill.allBefore)} (prefill)
on average over the ${n} models (held-out sizes: ${pct(e.decode.heldOutBefore)} and ${pct(e.prefill.heldOutBefore)}),
with ${e.decode.cappedBefore} of ${n} decode and ${e.prefill.cappedBefore} of ${n} prefill predictions capped by the roofline bound. The
90% interval (from the model's leave-one-hardware-out residuals) contained the measurement for
${e.decode.insideInterval ?? '–'} of ${n} decode and ${e.prefill.insideInterval ?? '–'} of ${n} prefill points.

**Calibration** (three sizes, both weight types, once per phase) fits two multipliers: one on the
bandwidth and compute times, one on the per-layer and per-step overheads, so small models (mostly
overhead) and large ones (mostly bytes) each pin down their part. On the held-out sizes the error goes
to ${pct(e.decode.heldOutAfter)} (decode) and ${pct(e.prefill.heldOutAfter)} (prefill). What remains is what two multipliers cannot
explain (cache effects of models that fit in the CPU caches, the per-format kernels) and the noise of a
shared machine: see the 95% intervals of the measurements.
`}`
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
- **Query given to the regressor:** memBwGbs ${q.memBwGbs.toFixed(1)}, tflops ${q.tflops.toFixed(3)}, unifiedMemory ${q.unifiedMemory} (the CPU reads the weights from system RAM), vendor \`${q.vendor}\`${(q as { device?: string }).device ? `, device \`${(q as { device?: string }).device}\` and each model's layer count` : ''}; batch 1; decode at context ${r.workload.promptTokens + r.workload.genTokens / 2} (the middle of the generated run), prefill of a ${r.workload.promptTokens}-token prompt.
- **Workload:** ${r.workload.promptTokens} prompt tokens, ${r.workload.genTokens} generated (greedy), settings ${JSON.stringify(r.workload.combo)}, ${r.workload.warmups} warm-up and ${r.workload.reps} measured repetitions per model; measured values are 10% trimmed means.
- **Predictor:** \`pretrainedModel()\` of \`@kerneltune/regressor\` (\`${r.predictor.name}\`${r.predictor.scriptVersion ? ` from training script ${r.predictor.scriptVersion}` : ''}: ${r.predictor.description ?? 'ridge regression on log(measured ÷ roofline bound)'}; ${r.predictor.sampleCount} public llama.cpp measurements on ${r.predictor.trainedOn.length} devices). Its output is capped by the roofline bound, shown as its own column.
- **Calibration:** \`calibrate(pretrainedModel(), measurements)\` of the same package, fitted on ${r.calibration.calibratedOn.join(', ')} (both weight types) and **once per phase**: \`calibrate\` keys its correction on the hardware (bandwidth and TFLOPS) only, so a joint fit would average the decode and prefill shortfalls. Corrections: ${Object.entries(r.calibration.factors).map(([k, v]) => `${k} ×${v.toFixed(3)}${r.calibration.overheadFactors?.[k] !== undefined ? ` (overheads ×${r.calibration.overheadFactors[k]!.toFixed(3)})` : ''}`).join(', ')} (applied to the regressor's uncapped output, then capped again).

${table}

Errors are (predicted − measured) ÷ measured. The machine is shared with other work (other
builds and test suites ran on its 2 cores during this run), so runs vary, sometimes by 2× between
neighbouring sizes; the 95% intervals show the spread of the repetitions. Part of the error after
calibration is that noise, not the predictor.

## How to read it

**This machine is far outside what the pretrained model was trained on.** Its training rows are
3B–70B (active) parameter models on hardware with 68–2,039 GB/s and 2.3–757 TFLOPS; here the
models have 15M–250M parameters and the CPU ${q.memBwGbs.toFixed(1)} GB/s and ${q.tflops.toFixed(2)} TFLOPS. The
model has no CPU rows at all (CPU-only rows were dropped from its data), and the vendor one-hot
for \`${q.vendor}\` has a zero weight because no such row existed. Asked about models 12–190×
smaller than any it saw, on ${(68.25 / q.memBwGbs).toFixed(0)}× less bandwidth than its slowest chip (68.25 GB/s), it predicts throughput *above*
the roofline: before
calibration, ${e.decode.cappedBefore} of ${n} decode and ${e.prefill.cappedBefore} of ${n} prefill
predictions were capped, so the uncalibrated "prediction" on this machine is mostly the roofline
bound of \`@kerneltune/roofline\` (weights read once per token at the probed bandwidth; 2 FLOPs per
parameter per token at the estimated FLOP rate). That is the honest reading of the "before" column:
on a CPU the regressor adds little or nothing until it is calibrated.

Calibration multiplies the regressor's *uncapped* output by one factor per phase. The factor
absorbs what is constant on this machine: the single-thread copy probe against what llama.cpp's
kernels reach with the settings' threads, the FLOP-rate estimate, and the regressor's
extrapolation. After calibration ${e.decode.cappedAfter} of ${n} decode and ${e.prefill.cappedAfter} of ${n} prefill
predictions are still capped. What remains on the held-out sizes is what one factor cannot
explain: the shape of the regressor's size and format terms, which were fitted on models 12–190×
larger, the dequantization cost of each weight type, cache effects of small models, and noise.
The held-out figures are the ones to quote; the leave-one-out figures are over the calibration
sizes themselves.
`
}
