/** Renders docs/prediction-vs-measurement.md from a predict-vs-measure.ts result. */
interface DocInput {
  readonly date: string
  readonly command: string
  readonly predictor: string
  readonly calibration: { readonly method: string; readonly factors: Record<string, number>; readonly calibratedOn: readonly string[] }
  readonly hardware: { readonly detected: { cpu: { model: string; cores: number; threads: number; ramGb: number } }; readonly spec: { memBwGbs: number; fp16Tflops: number; sources: readonly string[] } }
  readonly device?: string
  readonly workload: { readonly promptTokens: number; readonly genTokens: number; readonly combo: Record<string, unknown>; readonly reps: number; readonly warmups: number }
}

export function renderDoc(r: DocInput, table: string): string {
  const cpu = r.hardware.detected.cpu
  const predictorText =
    r.predictor === 'roofline'
      ? 'the **roofline bound** (`@kerneltune/roofline` `decodeBound`/`prefillBound`) with this machine\'s hardware from `detectHardware` and its memory bandwidth from the copy probe. The trained predictor of `@kerneltune/regressor` did not exist when this table was produced, so the roofline bound stands in for it, and the calibration is a single multiplicative factor per metric (the geometric mean of measured ÷ predicted over the calibration models), not the regressor\'s `calibrate`.'
      : `\`${r.predictor}\`.`
  return `# Prediction against measurement (llama.cpp, this machine)

Produced by a script in the repo; every "measured" number is a real llama.cpp run, every
"predicted" number is computed. Reproduce with:

\`\`\`sh
${r.command}
\`\`\`

It writes \`bench/results/llamacpp-predict-vs-measure.json\` (every point, the hardware, the
factors) and this file. Synthetic llama models (random weights: meaningless text, real speed) of
each size and weight type are written, predicted, measured and deleted one at a time.

- **Date:** ${r.date}
- **Machine:** ${cpu.model}, ${cpu.cores} cores / ${cpu.threads} threads, ${cpu.ramGb.toFixed(1)} GiB RAM, no GPU
- **Measured on:** ${r.device ?? 'n/a'}
- **Hardware used by the prediction:** ${r.hardware.spec.memBwGbs.toFixed(1)} GB/s, ${r.hardware.spec.fp16Tflops.toFixed(3)} TFLOPS (${r.hardware.spec.sources.join('; ')})
- **Workload:** ${r.workload.promptTokens} prompt tokens, ${r.workload.genTokens} generated (greedy), settings ${JSON.stringify(r.workload.combo)}, ${r.workload.warmups} warm-up and ${r.workload.reps} measured repetitions per model; measured values are 10% trimmed means.
- **Predictor:** ${predictorText}
- **Calibrated on:** ${r.calibration.calibratedOn.join(', ')} (both weight types); factors ${Object.entries(r.calibration.factors).map(([k, v]) => `${k} ×${v.toFixed(3)}`).join(', ')}. The errors below are on the other sizes only.

${table}

Errors are (predicted − measured) ÷ measured. The machine is shared with other work, so runs
vary; the 95% intervals show the spread of the repetitions.

How to read it:
- Decode on a CPU is memory-bound, so its prediction is the weights and KV bytes per token divided
  by the probed bandwidth. The probe is a single-thread copy, and the runs use the thread count
  in the settings above. A probe that reads higher or lower than what llama.cpp's kernels reach
  shows up as a constant factor.
- The prefill prediction is compute-bound. It uses a FLOP rate estimated from the core count,
  the clock and the SIMD width, for all cores, while the runs use the settings' threads. That is
  also a constant factor.
- One factor per metric, fitted on the calibration sizes, is exactly what removes such constant
  gaps. What remains on the held-out sizes is what a constant cannot explain: the dequantization
  cost of each weight type, cache effects of small models, and noise.
`
}
