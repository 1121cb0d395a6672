/**
 * The TunerFeatures builder with upstream's semantics (§A.3): raw inputs in, normalised values
 * out, every value clamped to [0,1], the documented defaults for unset fields, and `tryBuild`
 * rejecting negative params / bandwidth / TFLOPS with upstream's message.
 */
import { KerneltuneError, type BottleneckClassName, type HardwareSpec } from '@kerneltune/core'
import {
  KERNEL_TYPES,
  TRUENO_QUANT_TYPES,
  toTruenoQuant,
  truenoQuantBytes,
  type KernelTypeName,
  type TruenoQuant,
} from './quant.ts'
import type { TunerFeatures } from './tuner-features.ts'

/** f32::EPSILON, upstream's floor inside log10 for f0. */
export const F32_EPSILON = 1.1920929e-7

/** Values used for unset hardware fields (§A.3). */
export const HARDWARE_DEFAULTS = { memBwGbs: 1000, tflops: 100, smCount: 128, l2CacheMb: 48 } as const
/** Bytes per parameter assumed by f40 when no quantization is set (Q4K's 0.5625). */
export const DEFAULT_BYTES_PER_PARAM = 0.5625

/**
 * Clamp to [0,1]. NaN stays NaN on purpose (Rust's `clamp` does the same), so `validate()` reports
 * it instead of the builder hiding it.
 */
export const clamp01 = (x: number): number => (Number.isNaN(x) ? x : Math.min(Math.max(x, 0), 1))

/** f0 from billions of parameters. */
export const normParams = (p: number): number => clamp01((Math.log10(Math.max(p, F32_EPSILON)) + 1) / 3)
/** Inverse of f0 (as trueno's roofline decodes it): 0 gives 0.1B. */
export const denormParams = (f0: number): number => 10 ** (f0 * 3 - 1)
/** f40 from bytes per parameter. */
export const arithmeticIntensityOf = (bpp: number): number => clamp01(Math.min(2 / bpp, 10) / 10)

export interface RawFeatureInputs {
  modelParamsB?: number
  hiddenDim?: number
  numLayers?: number
  numHeads?: number
  headDim?: number
  vocabSize?: number
  batchSize?: number
  seqLen?: number
  cudaGraphs?: boolean
  kvCaches?: number
  isPrefill?: boolean
  quant?: TruenoQuant
  kernel?: KernelTypeName
  gpuMemBwGbs?: number
  gpuComputeTflops?: number
  gpuSmCount?: number
  gpuL2CacheMb?: number
  zeroCopy?: boolean
  theoreticalEfficiency?: number
  measuredTps?: number
  bestKernelId?: number
  bottleneckClass?: BottleneckClassName
}

export class TunerFeaturesBuilder {
  private readonly raw: RawFeatureInputs

  constructor(raw: RawFeatureInputs = {}) {
    this.raw = { ...raw }
  }

  private with(patch: RawFeatureInputs): this {
    Object.assign(this.raw, patch)
    return this
  }

  modelParamsB(b: number): this { return this.with({ modelParamsB: b }) }
  hiddenDim(n: number): this { return this.with({ hiddenDim: n }) }
  numLayers(n: number): this { return this.with({ numLayers: n }) }
  numHeads(n: number): this { return this.with({ numHeads: n }) }
  headDim(n: number): this { return this.with({ headDim: n }) }
  vocabSize(n: number): this { return this.with({ vocabSize: n }) }
  batchSize(n: number): this { return this.with({ batchSize: n }) }
  seqLen(n: number): this { return this.with({ seqLen: n }) }
  cudaGraphs(on: boolean): this { return this.with({ cudaGraphs: on }) }
  /** Number of separate KV caches; f9 = kvCaches / batch (defaults to batch, i.e. 1.0). */
  kvCaches(n: number): this { return this.with({ kvCaches: n }) }
  isPrefill(on: boolean): this { return this.with({ isPrefill: on }) }
  /** Accepts a trueno slot (`Q4K`) or any GGUF spelling (`Q4_K`, `Q4_K_M`, `BF16`...). */
  quantType(q: TruenoQuant | string): this {
    const slot = toTruenoQuant(q)
    if (slot === undefined) {
      throw new KerneltuneError('INVALID_FEATURE', `Invalid feature: unknown quantization "${q}"; accepted: ${TRUENO_QUANT_TYPES.join(', ')} or a GGUF name`)
    }
    return this.with({ quant: slot })
  }
  kernelType(k: KernelTypeName): this {
    if (!(KERNEL_TYPES as readonly string[]).includes(k)) {
      throw new KerneltuneError('INVALID_FEATURE', `Invalid feature: unknown kernel "${k}"; accepted: ${KERNEL_TYPES.join(', ')}`)
    }
    return this.with({ kernel: k })
  }
  gpuMemBwGbs(x: number): this { return this.with({ gpuMemBwGbs: x }) }
  gpuComputeTflops(x: number): this { return this.with({ gpuComputeTflops: x }) }
  gpuSmCount(n: number): this { return this.with({ gpuSmCount: n }) }
  gpuL2CacheMb(x: number): this { return this.with({ gpuL2CacheMb: x }) }
  zeroCopy(on: boolean): this { return this.with({ zeroCopy: on }) }
  /**
   * Sets bandwidth, TFLOPS, SM count, L2 and zero-copy from a hardware spec. Upstream's
   * `.hardware()` reset sm_count to None; kerneltune's spec carries the SM count, so it is used
   * (a spec without one leaves the field unset, which gives upstream's default of 128).
   */
  hardware(hw: HardwareSpec): this {
    return this.with({
      gpuMemBwGbs: hw.memBwGbs,
      gpuComputeTflops: hw.fp16Tflops,
      gpuSmCount: hw.smCount,
      gpuL2CacheMb: hw.l2CacheMb,
      zeroCopy: hw.unifiedMemory,
    })
  }
  /** f41 directly (clamped). */
  theoreticalEfficiency(x: number): this { return this.with({ theoreticalEfficiency: x }) }
  /**
   * The measured-throughput label; also sets f41 the way upstream's FeatureExtractor does:
   * measured / (bw·1e9 / (params_b·1e9·bpp)), clamped.
   */
  measuredTps(tps: number): this { return this.with({ measuredTps: tps }) }
  bestKernelId(id: number): this { return this.with({ bestKernelId: id }) }
  bottleneckClass(c: BottleneckClassName): this { return this.with({ bottleneckClass: c }) }

  /** The raw inputs so far (a copy). */
  inputs(): RawFeatureInputs {
    return { ...this.raw }
  }

  /** Builds, or throws INVALID_FEATURE "<field> must be non-negative, got X" (upstream's checks). */
  tryBuild(): TunerFeatures {
    const r = this.raw
    for (const [field, value] of [
      ['model_params_b', r.modelParamsB],
      ['gpu_mem_bw_gbs', r.gpuMemBwGbs],
      ['gpu_compute_tflops', r.gpuComputeTflops],
    ] as const) {
      if (value !== undefined && value < 0) {
        throw new KerneltuneError('INVALID_FEATURE', `Invalid feature: ${field} must be non-negative, got ${value}`, {
          details: { field, value },
        })
      }
    }
    const batch = r.batchSize ?? 1
    const kv = r.kvCaches ?? batch
    const bpp = r.quant === undefined ? DEFAULT_BYTES_PER_PARAM : truenoQuantBytes(r.quant)
    const bw = r.gpuMemBwGbs ?? HARDWARE_DEFAULTS.memBwGbs
    let efficiency = r.theoreticalEfficiency ?? 0
    if (r.theoreticalEfficiency === undefined && r.measuredTps !== undefined) {
      const roofline = (bw * 1e9) / ((r.modelParamsB ?? 0) * 1e9 * bpp)
      efficiency = r.measuredTps / roofline
    }
    const f: TunerFeatures = {
      modelParamsB: r.modelParamsB === undefined ? 0 : normParams(r.modelParamsB),
      hiddenDimNorm: clamp01((r.hiddenDim ?? 0) / 16384),
      numLayersNorm: clamp01((r.numLayers ?? 0) / 128),
      numHeadsNorm: clamp01((r.numHeads ?? 0) / 128),
      headDimNorm: clamp01((r.headDim ?? 0) / 256),
      vocabSizeLog: r.vocabSize === undefined ? 0 : clamp01(Math.log10(Math.max(r.vocabSize, 1)) / 6),
      batchSizeNorm: clamp01(batch / 64),
      seqLenLog: r.seqLen === undefined ? 0 : clamp01(Math.log2(Math.max(r.seqLen, 1)) / 15),
      cudaGraphs: r.cudaGraphs ? 1 : 0,
      kvCacheRatio: clamp01(batch === 0 ? 1 : kv / batch),
      isPrefill: r.isPrefill ? 1 : 0,
      quantOneHot: TRUENO_QUANT_TYPES.map((q) => (q === r.quant ? 1 : 0)),
      kernelOneHot: KERNEL_TYPES.map((k) => (k === r.kernel ? 1 : 0)),
      gpuMemBwNorm: clamp01(bw / 3000),
      gpuComputeNorm: clamp01((r.gpuComputeTflops ?? HARDWARE_DEFAULTS.tflops) / 500),
      gpuSmNorm: clamp01((r.gpuSmCount ?? HARDWARE_DEFAULTS.smCount) / 200),
      gpuL2CacheNorm: clamp01((r.gpuL2CacheMb ?? HARDWARE_DEFAULTS.l2CacheMb) / 128),
      isZeroCopy: r.zeroCopy ? 1 : 0,
      arithmeticIntensity: arithmeticIntensityOf(bpp),
      theoreticalEfficiency: clamp01(Number.isNaN(efficiency) ? 0 : efficiency),
    }
    if (r.measuredTps !== undefined) f.measuredTps = r.measuredTps
    if (r.bestKernelId !== undefined) f.bestKernelId = r.bestKernelId
    if (r.bottleneckClass !== undefined) f.bottleneckClass = r.bottleneckClass
    return f
  }

  /** Upstream's `build()` panics on the error; here it throws the same typed error. */
  build(): TunerFeatures {
    return this.tryBuild()
  }
}

/** `TunerFeatures::builder()`. */
export function featuresBuilder(raw?: RawFeatureInputs): TunerFeaturesBuilder {
  return new TunerFeaturesBuilder(raw)
}
