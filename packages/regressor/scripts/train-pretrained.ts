/**
 * Trains the pretrained throughput model shipped in assets/pretrained.json from the public
 * measurements in ../shared/data/llm_throughput, and writes assets/accuracy.md and the accuracy
 * tables of the regressor README and the top README (between their markers), all from one run.
 *
 *   pnpm --filter @kerneltune/regressor train-pretrained [--data DIR] [--kit FILE,...] [--check] [--jobs N] [--only CHIP,...]
 *   (or: npx tsx --conditions=@kerneltune/source packages/regressor/scripts/train-pretrained.ts)
 *
 * The physics model (time per step as weight and KV bytes over bandwidth, compute, dequantization,
 * activation traffic and per-layer and per-step overheads, multipliers learned per hardware class,
 * vendor, weight format and backend build), at a ridge penalty chosen from a small grid by grouped
 * cross-validation over chips; evaluated by nested leave-one-chip-out (scripts/nested.ts), with a
 * 90% split-conformal interval calibrated on held-out chips.
 *
 * Deterministic: rows are read in file order, the physics fit starts from fixed priors with a fixed
 * iteration rule, folds are dealt from sorted chip names; the outputs are byte-identical between
 * runs (timings go to stderr only). `--check` regenerates everything in memory and exits 1 when any
 * of the committed files differs, writing nothing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chipGroups } from '../src/chips.ts'
import { LearnedModel, prepare, type TrainingSample } from '../src/learned.ts'
import { summarize } from './accuracy.ts'
import { devReport, renderAccuracy, withBlock } from './accuracy-report.ts'
import { CPU_SPECS, PROVENANCE_FLAGGED, loadThroughputData } from './data-rows.ts'
import { select, VARIANTS } from './nested.ts'
import { runNested } from './nested-parallel.ts'
import { kitPaths } from './kit-rows.ts'
import { hardwareMap, renderHardwareMap } from './hardware-map.ts'
import type { PhysicsState } from '../src/physics.ts'
import { GPU_ROWS_FILE, HOST_LIMITED, OLD_MI300X, SYCL_BF16_DECODE } from './gpu-rows-2026.ts'
import { MULTI_GPU, RECENT_CPU_SPECS, RECENT_FLAGGED, RECENT_HOST_LIMITED } from './recent-rows.ts'

export const SCRIPT_VERSION = '3.6.1'
const SEED = 42
const HERE = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const dataArg = args.indexOf('--data')
const DATA = resolve(dataArg >= 0 ? args[dataArg + 1]! : join(HERE, '../../../../shared/data/llm_throughput'))
// Our own H100 and H200 llama-bench rows (kit-rows.ts), committed with the repository, not in
// ../shared/data; --kit FILE,FILE names other kit runs instead (and then no llama-bench extras).
const kitArg = args.indexOf('--kit')
const KIT = kitArg >= 0 ? { kit: args[kitArg + 1]!.split(',').map((f) => resolve(f)), kitExtra: [] } : kitPaths()
const CHECK = args.includes('--check')
// The development loop: only these chips' outer folds, their figures printed, nothing written or checked.
const onlyArg = args.indexOf('--only')
const ONLY = onlyArg >= 0 ? args[onlyArg + 1]!.split(',') : undefined
// Outer folds run in N child processes (default 2, the shared machine's cores); the result is the same for any N.
const jobsArg = args.indexOf('--jobs')
const JOBS = jobsArg >= 0 ? Number(args[jobsArg + 1]) : 2

if (!existsSync(DATA)) {
  console.error(`data folder not found: ${DATA} (pass --data DIR)`)
  process.exit(2)
}
const missingKit = [...KIT.kit, ...KIT.kitExtra].filter((f) => !existsSync(f))
if (missingKit.length) {
  console.error(`kit results not found: ${missingKit.join(', ')} (--kit takes the predict-vs-measure.json files of GPU kit runs, comma-separated)`)
  process.exit(2)
}

const t0 = Date.now()
const data = loadThroughputData(DATA, KIT)
const samples = data.samples
console.error(`rows: ${samples.length} samples from ${data.files.map((f) => `${f.file} (${f.used}/${f.rows} rows used)`).join(', ')}`)
// Every row left out, counted by its reason (the asset records the same counts in trainedOn[].excluded).
for (const f of data.files) for (const [why, n] of Object.entries(f.excluded)) console.error(`left out: ${f.file}: ${n} × ${why}`)
const outer = await runNested(samples, JOBS, (line) => console.error(line), ONLY)
if (ONLY) {
  console.log(devReport(samples, outer, ONLY))
  process.exit(0)
}
const summary = summarize(samples, outer)
for (const t of summary.targets) console.error(`${t.met ? 'met' : 'NOT MET'}: ${t.name}: ${t.figure}${t.gap ? ` (${t.gap})` : ''}`)
// The shipped model: the same inner procedure on every chip (variant and interval), then one fit.
const rows = prepare(samples)
const sel = select(samples, rows, samples.map((_, i) => i))
const shippedVariant = VARIANTS[sel.chosen]!
const fitted = LearnedModel.train(samples, shippedVariant.options)
const importance = fitted.json.importance
console.error(`shipped: ${shippedVariant.label}; ${((Date.now() - t0) / 1000).toFixed(0)} s in all`)
const ranges = (xs: number[]) => {
  const out: string[] = []
  const s = [...new Set(xs)].sort((a, b) => a - b)
  for (let i = 0; i < s.length; i++) {
    let j = i
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++
    out.push(i === j ? `${s[i]}` : `${s[i]}-${s[j]}`)
    i = j
  }
  return out.join(',')
}
const phaseCoverage = (p: 'decode' | 'prefill') => ({ level: 0.9, coverage: summary[p].rows.coverage, medianRelativeWidth: summary[p].rows.medianWidth, rows: summary[p].rows.rows })
const model = fitted.with({
  mape: (summary.decode.rows.mape * summary.decode.rows.rows + summary.prefill.rows.mape * summary.prefill.rows.rows) / samples.length,
  importance,
  interval: sel.interval,
  meta: {
    description: 'Physics model: time per step = Σ multiplier × (weight bytes ÷ bandwidth, KV bytes ÷ bandwidth, FLOPs ÷ FLOP rate, FLOPs × energy ÷ board power, dequantized weights ÷ FLOP rate, legacy CUDA F16 weight copies and attention scores ÷ bandwidth, activation traffic ÷ bandwidth, attention FLOPs, per-layer and per-step overheads), multipliers learned per hardware class, vendor, weight format and backend build (CUDA, Metal, Vulkan, ROCm, SYCL, CPU) on public llama.cpp measurements; quantized GPU prefill of current builds (variant "int8 kernels") at the int8 rate of the units llama.cpp\'s integer kernels use, with a per-backend exponent for how far the FP16 matrix rate binds; variants "current-build classes" learn the hardware-class effects of current builds apart from the 2023–24 builds\' (in decode, or on weight, KV and overhead terms); a prediction of llama.cpp-class throughput, clamped by the roofline bound.',
    script: 'packages/regressor/scripts/train-pretrained.ts',
    scriptVersion: SCRIPT_VERSION,
    seed: SEED,
    options: shippedVariant.options,
    variants: VARIANTS.map((v, i) => ({ label: v.label, options: v.options, innerScore: sel.scores[i] })),
    trainedOn: data.files.map((f) => ({ file: f.file, rows: f.rows, used: f.used, samples: f.samples, excluded: f.excluded, usedRows: ranges(f.usedRows) })),
    sampleCount: samples.length,
    hardware: [...new Set(samples.map((s) => s.group!))],
    chips: Object.fromEntries(chipGroups(samples.map((s) => s.group!))),
    assumptions: [
      'XiongjieDai LLaMA 1/2 tables: pp taken as a 512-token prompt, tg as decode at context 64; the median of the three runs is used',
      'XiongjieDai LLaMA 3 "tg N": decode at mean context N/2; "pp N": a prompt of N tokens; Q4_K_M counted as Q4_K',
      'XiongjieDai LLaMA 1/2 tables are Aug–Dec 2023 builds run through ./main (engineEra "legacy-2023"), the LLaMA 3 tables May 2024 llama-bench builds ("legacy"); the llama.cpp benches and llamacpp_recent_builds.csv are 2025–2026 builds ("current", the default for predictions); build-age effects are per backend',
      'the backend of a row: as llama-bench printed it in llamacpp_recent_builds.csv (CUDA, Vulkan, Metal, ROCm, CPU); elsewhere the vendor\'s usual one (CUDA on NVIDIA, Metal on Apple); it enters the model as an effect on every term\'s multiplier for current builds (era:current:<backend>), so the same card on CUDA and on Vulkan gets different efficiencies',
      'llamacpp_recent_builds.csv: n_ubatch from the row (empty = llama-bench\'s default 512); the file\'s average bits per weight = size_GiB × 2^30 × 8 ÷ params where the size is printed (mixed-format files); test "pp512 @ dN" is a 512-token prompt at context N, tg128 decode at context 64',
      `excluded by a rule fixed before scoring: the rows ${PROVENANCE_FLAGGED}; ${RECENT_FLAGGED}; ${MULTI_GPU}; ${RECENT_HOST_LIMITED}; in ${GPU_ROWS_FILE}: ${HOST_LIMITED}; ${SYCL_BF16_DECODE}; ${OLD_MI300X}; multi-GPU rows; combined pp+tg rates; hardware without a sourced preset (RTX 2070, RX 570, the unnamed Meteor Lake iGPU, the Lunar Lake Arc 140V)`,
      `${GPU_ROWS_FILE} (PROVENANCE §A5): backend as printed (CUDA, Vulkan, ROCm, SYCL); n_ubatch from the row (the PR compare tables' micro-batch sweeps), empty = 512; the PR tables' "master" column as a current build; "llama 8B" = the Llama 3 8B architecture (8.03B); "gemma 2B" = Gemma 1 2B (llama.cpp LLM_ARCH_GEMMA, 18 layers; 2.51B); MoE active parameters from the names (A3B 3B, A4B 4B, gemma E4B 4B, Llama 4 Scout 17B); unsloth Q8_K_XL files as Q8_0 with their size's bits per weight; the label "MI60 / MI50" as the MI50 (one die, held out together)`,
      'kernel figures (int8Tops, fp16VectorTflops) from the hardware presets (features/src/hardware/kernel-figures.ts, each with its source): NVIDIA Turing and later 2 × the dense FP16 tensor rate (the whitepaper tables), MI100 matrix cores, MI50/MI60 dot4, MI300X, Arc Pro B70 its vector engines\' DP4A (91.8 TOPS: llama.cpp\'s integer kernels do not use XMX); P100 and V100 none (no MMQ at prompt batches: dequantize + cuBLAS, with the F16 copy); a chip without one (Apple, the older AMD and Intel parts) multiplies quantized weights at its FP16 rate; per backend (v3.4.0): SYCL has no integer matrix kernel (FP16 matrix rate and the F16 copy), and (v3.5.0, corrected) Vulkan multiplies quantized prompts on cooperative matrices at the FP16 matrix rate on a device with matrix units (NVIDIA Turing and later, Intel Xe2), with packed int8 dot products at 2 × fp16VectorTflops elsewhere; (v3.6.0) CUDA\'s MMQ rate capped at SMs × boost clock × 2,048 int8 operations (a GeForce SM\'s dense rate per clock: MMQ issues warp-level mma.sync, no wgmma), and decode of more than 8 sequences on CUDA and ROCm timed on MMQ at the same int8 rate (MMVQ takes at most 8)',
      'bench/results/gpu/predict-vs-measure.json: our own llama-bench run (pp512, tg128, 3 repetitions, every layer offloaded, micro-batch 512) of a current llama.cpp build (de3ff815ea7d, CUDA 13) on an NVIDIA H100 80GB HBM3 (SXM), 2026-11-26, with the h100-sxm preset\'s datasheet figures; nine synthetic llama-family models (1B and 8B dense shapes, a 6B mixture of 8 experts with 2 used; Q4_0, Q8_0, F16); bench/results/gpu-h200/predict-vs-measure.json: the same kit and build on an NVIDIA H200 (h200 preset), 2026-11-26, the nine and 3B and 14B dense shapes and a 30B mixture of 128 experts with 8 used (17 files); bench/results/gpu-h200/extra/: llama-bench beside it on the H200 (prefill of 512 and 2048 tokens at micro-batches 128–2048, decode at depths 4k and 16k; workloads the kit run measured left out). The models\' weights are random: decode and prefill time depend on the tensors\' shapes and formats, not their values; shapes from the kit\'s model synth flags (chooseLlamaShape), sizes from the files; held out with the other H100 and H200 labels as one die (nvidia-gh100)',
      'board power (tdpWatts) from the hardware presets (vendor data sheets); Apple publishes none and Strix Halo\'s is configurable, so those rows have no energy term',
      'single-device rows only (multi-GPU rows use layer split); OOM rows dropped',
      `CPU-only rows (Apple CPU clusters): ${Object.entries(CPU_SPECS).map(([k, v]) => `${k}: ${v.note}`).join('; ')}`,
      `CPU rows of llamacpp_recent_builds.csv: ${Object.values(RECENT_CPU_SPECS).map((v) => v.note).join('; ')}`,
      'CPU kernel rates (kernelFlops): decode multiplies quantized weights at the int8 dot-product rate (4x FP32) and F16 at 2x FP32 on ARM, 1x on x86; prefill at the FP32 rate; a CPU\'s weight-format effects are its own (cpu-quant), not the GPUs\'',
      'MoE active parameters from the model cards: gpt-oss-20b 3.6B, gpt-oss-120b 5.1B, Qwen3-Coder-30B-A3B 3.3B, GLM-4.7-Flash 3B, Qwen3.5-35B-A3B, Qwen3-Coder-Next and ERNIE-4.5-21B-A3B 3B',
      'llama-batched-bench: every sequence carries the same tokens (identicalSequences); n_ubatch from the file; the llama.cpp benches\' llama-bench rows: n_ubatch 2048 (the data rules out the default 512)',
      'model shapes (layers, KV bytes and attention FLOPs per context token, sliding windows): LLaMA 1/2/3 and Llama 3.2 from their papers and model cards, TinyLlama, gemma-3 and the llama.cpp benches models from their config.json as recalled (not re-checked offline); Qwen3.5, Qwen3-Coder-Next and ERNIE by the size proxy: layers 32 × ∛(params / 7B), LLaMA-3-8B KV and attention figures scaled with √(active params / 8B)',
    ],
    evaluation: 'nested leave-one-chip-out (scripts/nested.ts): outer folds hold out one die; variant and interval chosen and calibrated inside each fold',
    mapeIsLeaveOneChipOutNested: true,
    targets: summary.targets,
    decode: summary.decode,
    prefill: summary.prefill,
    byChip: summary.byChip,
    currentGpus: summary.currentGpus,
    intervalCoverage: { decode: phaseCoverage('decode'), prefill: phaseCoverage('prefill') },
    // What held-out rows that extrapolated measured: said next to a prediction that extrapolates.
    extrapolating: summary.extrapolating,
  },
})

const header = `Generated by \`packages/regressor/scripts/train-pretrained.ts\` v${SCRIPT_VERSION} (seed ${SEED}) from ${samples.length} samples ` +
  `(${data.files.filter((f) => f.used).map((f) => `${f.file}: ${f.used} of ${f.rows} rows`).join('; ')}).`
// Which hardware the shipped model knows, derived from it (hardware-map.ts), not written by hand.
const hardware = renderHardwareMap(hardwareMap(fitted.json.physics as PhysicsState, samples, rows))
const report = renderAccuracy({ header, summary, shipped: { label: shippedVariant.label, scores: sel.scores, supportBuckets: sel.interval.support !== undefined }, hardware })
const assets = join(HERE, '../assets')
const readmes = [join(HERE, '../README.md'), join(HERE, '../../../README.md')]
const outputs: [string, string][] = [
  [join(assets, 'pretrained.json'), JSON.stringify(model.toJSON()) + '\n'],
  [join(assets, 'accuracy.md'), report],
  ...readmes.map((f) => [f, withBlock(readFileSync(f, 'utf8'), report)] as [string, string]),
]
if (CHECK) {
  const stale = outputs.filter(([f, text]) => !existsSync(f) || readFileSync(f, 'utf8') !== text).map(([f]) => f)
  if (stale.length) {
    console.error(`--check: not what this script writes from ${DATA}: ${stale.join(', ')}`)
    process.exit(1)
  }
  console.error('--check: the asset, the accuracy report and both README tables are what this script writes')
} else {
  mkdirSync(assets, { recursive: true })
  for (const [f, text] of outputs) writeFileSync(f, text)
  console.log(report)
}

export type { TrainingSample }
