/**
 * `kerneltune recommend`: BrickTuner's recommendation for a model on hardware under a workload:
 * predicted throughput (clamped by the roofline), kernel, bottleneck with its explanation and
 * action, overall confidence and the experiments to try. The throughput is the prediction
 * `kerneltune predict` gives for the same flags (made from the full query: the 42-value vector
 * saturates bandwidth at 3000 GB/s and TFLOPS at 500), so the two commands never disagree; kernel,
 * bottleneck and experiments come from BrickTuner on the feature vector.
 */
import { BrickTuner } from '@kerneltune/classifier'
import { featuresFrom, validate } from '@kerneltune/features'
import { targetQuery } from '@kerneltune/regressor'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues } from '../cli/output.ts'
import { PREDICT_FLAGS, loadLearned, loadPredictor, predictTarget } from './predict.ts'
import { HARDWARE_FLAGS, MODEL_FLAGS, WORKLOAD_FLAGS } from './shared/target-flags.ts'

export const recommendCommand = defineCommand({
  name: 'recommend',
  summary: 'Recommend a kernel, name the bottleneck and suggest experiments, with predicted throughput.',
  description: 'BrickTuner (trueno §A.7) for one configuration: the throughput prediction (the same as `kerneltune predict` for these flags; a prediction, not a measurement), the kernel from the rules (top, confidence, alternatives), the bottleneck class with its explanation and recommended action, the overall confidence (mean of the three confidences) and the suggested experiments. --model-file takes a model written by `kerneltune train` or `kerneltune calibrate`.',
  flags: [...MODEL_FLAGS, ...HARDWARE_FLAGS, ...WORKLOAD_FLAGS, ...PREDICT_FLAGS],
  jsonOutput: '{ "throughput": Prediction { kind: "prediction", predictedTps, rooflineTps, capped, rawTps, confidence, topFeatures, model }, "kernel": { topKernel, confidence, alternatives: [kernel, confidence][] }, "bottleneck": { class, confidence, explanation, recommendedAction }, "modelVersion": string, "confidenceOverall": number, "suggestedExperiments": ExperimentSuggestion[] (externally tagged, as upstream), "experimentText": string[], "predictor": string, "query": ThroughputQuery, "modelSource": string, "hardwareSource": string, "assumptions": string[] }',
  examples: [
    'kerneltune recommend --model llama-3-8b --hardware rtx-4090',
    'kerneltune recommend --params-b 1.5 --quant Q4K --mem-bw-gbs 1000 --batch 4 --cuda-graphs --json',
    'kerneltune recommend --model llama-3-8b --hardware rtx-4090 --model-file calibrated.json',
  ],
  async run(ctx) {
    const f = ctx.flags
    const heuristic = f.heuristic === true
    const predictor = await loadPredictor(ctx.io, f.modelFile, heuristic)
    const { m, hw, w, prefill, contextTokens: context, workload: queryWorkload } = await predictTarget(f, ctx.io)
    const q = targetQuery({ model: m.model, hardware: hw.hardware, workload: queryWorkload })
    const workload = prefill ? w : { ...w, contextLength: context }
    const features = featuresFrom({ model: m.model, hardware: hw.hardware, workload, kernel: w.kernel })
    validate(features)
    // The tuner's own model names the version; the throughput is the predictor's, from the full query.
    const tuner = new BrickTuner({ throughput: heuristic ? 'heuristic' : f.modelFile !== undefined ? await loadLearned(ctx.io, f.modelFile) : 'pretrained' })
    const rec = tuner.recommend(features, predictor.predict(q))
    const assumptions = [...m.assumptions, ...hw.assumptions]
    if (ctx.json) return void ctx.printJson({ ...rec, predictor: predictor.name, query: q, modelSource: m.source, hardwareSource: hw.source, assumptions })
    const t = rec.throughput
    ctx.io.stdout(`Recommendation (throughput: ${predictor.name}; a prediction, not a measurement)\n\n`)
    ctx.io.stdout(keyValues([
      ['model', `${fmt(m.model.paramsB, 2)}B ${m.model.quant} (${m.source})`],
      ['hardware', `${hw.hardware.name}: ${fmt(hw.hardware.memBwGbs)} GB/s, ${fmt(hw.hardware.fp16Tflops)} TFLOPS (${hw.source})`],
      ['workload', `${q.phase}, batch ${q.batch}${q.phase === 'prefill' ? `, prompt ${q.promptTokens}` : `, context ${q.contextTokens}`}${w.cudaGraphs ? ', CUDA graphs' : ''}`],
    ]))
    ctx.io.stdout('\nThroughput\n' + indent(keyValues([
      ['prediction', `${fmt(t.predictedTps)} tok/s`],
      ['roofline cap', `${fmt(t.rooflineTps)} tok/s`],
      ['capped', t.capped ? `yes (unclamped ${fmt(t.rawTps)} tok/s)` : 'no'],
      ['confidence', fmt(t.confidence, 3)],
    ])))
    ctx.io.stdout('\nKernel\n' + indent(keyValues([
      ['top', `${rec.kernel.topKernel} (confidence ${fmt(rec.kernel.confidence, 2)})`],
      ['alternatives', rec.kernel.alternatives.map(([k, c]) => `${k} ${fmt(c, 2)}`).join(', ') || 'none'],
    ])))
    ctx.io.stdout('\nBottleneck\n' + indent(keyValues([
      ['class', `${rec.bottleneck.class} (confidence ${fmt(rec.bottleneck.confidence, 2)})`],
      ['explanation', rec.bottleneck.explanation],
      ['action', rec.bottleneck.recommendedAction],
    ])))
    ctx.io.stdout(`\nOverall confidence  ${fmt(rec.confidenceOverall, 3)}\n`)
    ctx.io.stdout('\nSuggested experiments\n' + (rec.experimentText.length ? rec.experimentText.map((e, i) => `  ${i + 1}. ${e}\n`).join('') : '  none\n'))
    if (assumptions.length) ctx.io.stdout('\nAssumed: ' + assumptions.join('; ') + '\n')
  },
})

const indent = (s: string) => s.split('\n').map((l) => (l ? `  ${l}` : l)).join('\n')
