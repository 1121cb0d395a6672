/**
 * @module @kerneltune/roofline
 * Physical throughput bounds for LLM inference: bytes per weight of every GGUF tensor type from
 * its block layout, decode and prefill rooflines that name the binding bound and explain it, the
 * ridge point, and trueno's own bound (§A.4) reproduced from the feature vector.
 *
 * @example
 * ```ts
 * import { decodeBound, truenoRooflineFrom, bytesPerWeight } from '@kerneltune/roofline'
 * bytesPerWeight('Q4_K') // 0.5625 (144 bytes per 256 weights)
 * truenoRooflineFrom({ paramsB: 7, quant: 'Q4K', memBwGbs: 1008 }).boundTps // 256.0
 * const d = decodeBound({ paramsB: 7, quant: 'Q4_K' }, { memBwGbs: 1008, fp16Tflops: 330 }, { batch: 1 })
 * console.log(d.boundTps, d.binding, d.explanation)
 * ```
 */
export {
  BLOCK_LAYOUTS,
  bitsPerWeight,
  blockLayout,
  bytesPerWeight,
  tensorBytes,
  weightBytesOf,
  type BlockLayout,
} from './bytes.ts'
export {
  decodeBound,
  effectiveBytesPerParam,
  kvBytesPerToken,
  paramsReadPerStep,
  prefillBound,
  ridgePoint,
  type Binding,
  type PhaseBound,
  type RooflineHardware,
  type RooflineModel,
  type RooflineOptions,
} from './bounds.ts'
export {
  TRUENO_BOUND_MAX,
  TRUENO_BOUND_MIN,
  truenoRooflineBound,
  truenoRooflineDetail,
  truenoRooflineFrom,
  type TruenoBoundDetail,
} from './trueno.ts'
