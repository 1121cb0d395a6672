/**
 * Test fixture for the train and calibrate command tests (kept out of *.test.ts so importing it
 * does not register another file's tests).
 */
import { parseQuery, queryBound, type ThroughputQueryInput } from '@kerneltune/regressor'

/**
 * Synthetic measurements with a known answer: each hardware reaches a fixed share of the roofline
 * bound, with a deterministic ±3% wobble so no fit is exact.
 */
export function syntheticRows(): (ThroughputQueryInput & { measuredTps: number })[] {
  const hw = [{ memBwGbs: 1008, tflops: 330, eff: 0.7 }, { memBwGbs: 936, tflops: 71, eff: 0.62 }, { memBwGbs: 400, tflops: 27, eff: 0.55 }]
  const rows: (ThroughputQueryInput & { measuredTps: number })[] = []
  let i = 0
  for (const h of hw) {
    for (const paramsB of [1.5, 3, 7, 8, 13]) {
      for (const batch of [1, 2]) {
        const q = { paramsB, quant: 'Q4_K', memBwGbs: h.memBwGbs, tflops: h.tflops, batch }
        const bound = queryBound(parseQuery(q)).boundTps
        rows.push({ ...q, measuredTps: Number((bound * h.eff * (1 + 0.03 * Math.sin(i++ * 1.7))).toFixed(3)) })
      }
    }
  }
  return rows
}
