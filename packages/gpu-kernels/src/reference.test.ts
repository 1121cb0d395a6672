import { describe, it, expect } from 'vitest'
import { dequantizeRow, weightBytes } from './formats.ts'
import { compareWithReference, makeProblemData, referenceMatmul, referenceWithBounds, seededRandom } from './reference.ts'
import type { MatmulProblem } from './types.ts'

describe('makeProblemData', () => {
  it('should be deterministic for a seed and sized for the format', () => {
    const p: MatmulProblem = { format: 'q4_0', m: 2, n: 5, k: 64 }
    const a = makeProblemData(p, 7)
    const b = makeProblemData(p, 7)
    expect(a.weights.length).toBe(weightBytes('q4_0', 5, 64))
    expect(a.activations.length).toBe(128)
    expect([...a.weights]).toEqual([...b.weights])
    expect([...makeProblemData(p, 8).weights]).not.toEqual([...a.weights])
  })
  it('should reject k that is not a multiple of 32', () => {
    expect(() => makeProblemData({ format: 'q8_0', m: 1, n: 1, k: 48 }, 1)).toThrow(/multiple of 32/)
  })
})

describe('referenceMatmul', () => {
  it.each(['q2_0', 'q3_0', 'q4_0', 'q8_0', 'f16'] as const)('should equal a naive dequantise-then-multiply for %s', (format) => {
    const p: MatmulProblem = { format, m: 3, n: 7, k: 96 }
    const { weights, activations } = makeProblemData(p, 11)
    const y = referenceMatmul(p, weights, activations)
    const w = new Float64Array(96)
    for (let j = 0; j < 7; j++) {
      dequantizeRow(format, weights, 96, j, w)
      for (let i = 0; i < 3; i++) {
        let s = 0
        for (let t = 0; t < 96; t++) s += activations[i * 96 + t]! * w[t]!
        expect(y[i * 7 + j]).toBeCloseTo(s, 5)
      }
    }
  })
  it('should reject activations of the wrong length', () => {
    const p: MatmulProblem = { format: 'q8_0', m: 2, n: 2, k: 32 }
    const { weights } = makeProblemData(p, 1)
    expect(() => referenceMatmul(p, weights, new Float32Array(3))).toThrow(/m\*k/)
  })
})

describe('compareWithReference', () => {
  const p: MatmulProblem = { format: 'q4_0', m: 2, n: 16, k: 512 }
  const { weights, activations } = makeProblemData(p, 5)
  const ref = referenceWithBounds(p, weights, activations)

  it('should accept an f32 computation in a different summation order', () => {
    const got = new Float32Array(p.m * p.n)
    const w = new Float32Array(p.k)
    for (let j = 0; j < p.n; j++) {
      dequantizeRow('q4_0', weights, p.k, j, w)
      for (let i = 0; i < p.m; i++) {
        // f32 accumulation, backwards, as a GPU might
        const acc = new Float32Array(1)
        for (let t = p.k - 1; t >= 0; t--) acc[0] = acc[0]! + Math.fround(activations[i * p.k + t]! * w[t]!)
        got[i * p.n + j] = acc[0]!
      }
    }
    const r = compareWithReference(ref, got, p.k)
    expect(r.correct).toBe(true)
    expect(r.maxAbsError).toBeLessThanOrEqual(r.tolerance)
  })
  it('should reject swapped nibbles, a wrong scale and a missing output', () => {
    const swapped = new Uint8Array(weights)
    for (let b = 0; b < swapped.length / 18; b++) {
      for (let j = 2; j < 18; j++) swapped[b * 18 + j] = ((swapped[b * 18 + j]! & 15) << 4) | (swapped[b * 18 + j]! >> 4)
    }
    expect(compareWithReference(ref, referenceMatmul(p, swapped, activations), p.k).correct).toBe(false)
    const scaled = Float32Array.from(ref.output, (v) => v * 1.01)
    expect(compareWithReference(ref, scaled, p.k).correct).toBe(false)
    const holed = new Float32Array(ref.output)
    holed[7] = NaN
    const r = compareWithReference(ref, holed, p.k)
    expect(r.correct).toBe(false)
    expect(r.maxAbsError).toBe(Infinity)
  })
})

describe('seededRandom', () => {
  it('should give values in [0, 1)', () => {
    const r = seededRandom(42)
    for (let i = 0; i < 1000; i++) {
      const v = r()
      expect(v >= 0 && v < 1).toBe(true)
    }
  })
})
