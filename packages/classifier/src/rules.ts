/**
 * trueno's rule-based KernelClassifier (§A.5) and BottleneckClassifier (§A.6), with the action
 * strings of §A.2. Batch and sequence are decoded from the vector as upstream decodes them:
 * batch = round(f6·64), seq = round(2^(f7·15)) (1 when unset). The upstream `accuracy` fields
 * (0.85 / 0.90) were never used by `predict`, so they are not reproduced.
 */
import type { BottleneckClassName, KernelTypeName } from '@kerneltune/core'
import { toVector, type TunerFeatures } from '@kerneltune/features'

export interface KernelRecommendation {
  topKernel: KernelTypeName
  confidence: number
  alternatives: [KernelTypeName, number][]
}

export interface BottleneckPrediction {
  class: BottleneckClassName
  confidence: number
  explanation: string
  recommendedAction: string
}

export const RECOMMENDED_ACTIONS: Readonly<Record<BottleneckClassName, string>> = {
  MemoryBound: 'Increase batch size (M) to amortize weight reads across sequences',
  ComputeBound: 'Rare for inference; check for redundant computation or use tensor cores',
  LaunchBound: 'Enable CUDA graphs or fuse kernels to reduce launch overhead',
  AttentionBound: 'Use Flash Decoding, reduce sequence length, or use batched attention',
  Unknown: 'Run profiling to identify bottleneck',
}

const vec = (f: TunerFeatures | readonly number[]) => (Array.isArray(f) ? (f as readonly number[]) : toVector(f as TunerFeatures))

/** Upstream's decoding of batch (f6) and sequence length (f7). */
export function decodeBatchSeq(f: TunerFeatures | readonly number[]): { batch: number; seq: number; cudaGraphs: boolean } {
  const v = vec(f)
  return { batch: Math.round(v[6]! * 64), seq: v[7]! > 0 ? Math.round(2 ** (v[7]! * 15)) : 1, cudaGraphs: v[8]! > 0.5 }
}

/** §A.5: batch ≥ 4 BatchedQ4K .90; ≥ 2 VectorizedQ4K .85; CUDA graphs VectorizedQ4K .88; else CoalescedQ4K .82. */
export function ruleKernel(f: TunerFeatures | readonly number[]): KernelRecommendation {
  const { batch, seq, cudaGraphs } = decodeBatchSeq(f)
  const [top, confidence]: [KernelTypeName, number] =
    batch >= 4 ? ['BatchedQ4K', 0.9] : batch >= 2 ? ['VectorizedQ4K', 0.85] : cudaGraphs ? ['VectorizedQ4K', 0.88] : ['CoalescedQ4K', 0.82]
  const attention: KernelTypeName = seq > 128 ? 'MultiWarpAttention' : 'IncrementalAttention'
  const candidates: [KernelTypeName, number][] = [['VectorizedQ4K', 0.85], ['CoalescedQ4K', 0.75], [attention, 0.7]]
  return { topKernel: top, confidence, alternatives: candidates.filter(([k]) => k !== top).slice(0, 2) }
}

/** §A.6: profiler label if set (0.95); else batch 1 without graphs → Launch; seq > 512 → Attention; else Memory. */
export function ruleBottleneck(f: TunerFeatures | readonly number[]): BottleneckPrediction {
  if (!Array.isArray(f) && (f as TunerFeatures).bottleneckClass !== undefined) {
    const c = (f as TunerFeatures).bottleneckClass!
    return { class: c, confidence: 0.95, explanation: `Bottleneck classified from profiler data: ${c}`, recommendedAction: RECOMMENDED_ACTIONS[c] }
  }
  const { batch, seq, cudaGraphs } = decodeBatchSeq(f)
  const out = (c: BottleneckClassName, confidence: number, explanation: string): BottleneckPrediction => ({ class: c, confidence, explanation, recommendedAction: RECOMMENDED_ACTIONS[c] })
  if (batch === 1 && !cudaGraphs) return out('LaunchBound', 0.75, 'Single sequence without CUDA graphs: kernel launch overhead may dominate')
  if (seq > 512) return out('AttentionBound', 0.8, `Long sequence (len=${seq}) likely makes attention the bottleneck`)
  return out('MemoryBound', 0.85, 'Q4K GEMV is typically memory-bound for LLM inference')
}

export type ExperimentSuggestion =
  | { IncreaseBatchSize: { from: number; to: number } }
  | 'EnableCudaGraphs'
  | { TryKernel: KernelTypeName }
  | { ReduceSequenceLength: { factor: number } }
  | { EnableMultiKvCache: { count: number } }

/** §A.7 `suggest_experiments` (batch = round(f6·64)). */
export function suggestExperiments(f: TunerFeatures | readonly number[], bottleneck: BottleneckClassName): ExperimentSuggestion[] {
  const { batch, cudaGraphs } = decodeBatchSeq(f)
  const out: ExperimentSuggestion[] = []
  if (bottleneck === 'MemoryBound') {
    if (batch < 8) out.push({ IncreaseBatchSize: { from: batch, to: Math.min(2 * batch, 8) } })
    out.push({ TryKernel: 'BatchedQ4K' })
    if (batch > 1) out.push({ EnableMultiKvCache: { count: batch } })
  } else if (bottleneck === 'LaunchBound') {
    if (!cudaGraphs) out.push('EnableCudaGraphs')
    out.push({ TryKernel: 'FusedRmsNormQ4K' })
  } else if (bottleneck === 'AttentionBound') {
    out.push({ TryKernel: 'BatchedAttention' }, { ReduceSequenceLength: { factor: 0.5 } })
  } else if (batch < 4) {
    out.push({ IncreaseBatchSize: { from: batch, to: 4 } })
  }
  return out
}

/** The display string of an experiment (§A.7). */
export function describeExperiment(e: ExperimentSuggestion): string {
  if (e === 'EnableCudaGraphs') return 'Enable CUDA graphs for kernel launch amortization'
  if ('IncreaseBatchSize' in e) return `Increase batch size: M=${e.IncreaseBatchSize.from} → M=${e.IncreaseBatchSize.to}`
  if ('TryKernel' in e) return `Try kernel: ${e.TryKernel}`
  if ('ReduceSequenceLength' in e) return `Reduce sequence length by ${((1 - e.ReduceSequenceLength.factor) * 100).toFixed(0)}%`
  return `Enable ${e.EnableMultiKvCache.count} separate KV caches for batched attention`
}
