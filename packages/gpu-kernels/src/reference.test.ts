import { describe, it, expect } from 'vitest'
import { dequantizeRow, weightBytes } from './formats.ts'
import { FULL_REFERENCE_MACS, compareWithReference, makeProblemData, referenceMatmul, referenceWithBounds, seededRandom, verificationRows } from './reference.ts'
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

describe('verificationRows', () => {
  it('should check every row up to the full-reference size, and 16 spread rows above it', () => {
    expect(verificationRows({ format: 'q4_0', m: 1, n: 14336, k: 4096 })).toBeUndefined()
    expect(verificationRows({ format: 'q4_0', m: 64, n: 512, k: 1024 })).toBeUndefined()
    const rows = verificationRows({ format: 'q4_0', m: 512, n: 14336, k: 4096 })!
    expect(512 * 14336 * 4096).toBeGreaterThan(FULL_REFERENCE_MACS)
    expect(rows.length).toBe(16)
    expect(rows[0]).toBe(0)
    expect(rows.at(-1)).toBe(511)
    expect(new Set(rows).size).toBe(16)
    // Different positions inside 64-row tiles, not the same residue every time.
    expect(new Set(rows.map((r) => r % 64)).size).toBeGreaterThan(8)
  })
})

describe('referenceWithBounds on sampled rows', () => {
  const p: MatmulProblem = { format: 'q8_0', m: 9, n: 6, k: 64 }
  const { weights, activations } = makeProblemData(p, 3)
  const full = referenceWithBounds(p, weights, activations)
  const rows = [0, 4, 8]
  const part = referenceWithBounds(p, weights, activations, rows)

  it('should equal the full reference on those rows', () => {
    expect(part.rows).toEqual(rows)
    expect(part.output.length).toBe(rows.length * p.n)
    rows.forEach((r, i) => {
      expect([...part.output.subarray(i * p.n, (i + 1) * p.n)]).toEqual([...full.output.subarray(r * p.n, (r + 1) * p.n)])
      expect([...part.absSums.subarray(i * p.n, (i + 1) * p.n)]).toEqual([...full.absSums.subarray(r * p.n, (r + 1) * p.n)])
    })
  })

  it('should check the sampled rows of a full m×n result, and only those', () => {
    expect(compareWithReference(part, full.output, p.k).correct).toBe(true)
    const wrongChecked = new Float32Array(full.output)
    wrongChecked[4 * p.n + 2] = wrongChecked[4 * p.n + 2]! * 1.01 + 1
    expect(compareWithReference(part, wrongChecked, p.k).correct).toBe(false)
    // Row 5 is not sampled: the full comparison sees the error, the sampled one cannot.
    const wrongUnchecked = new Float32Array(full.output)
    wrongUnchecked[5 * p.n] = NaN
    expect(compareWithReference(full, wrongUnchecked, p.k).correct).toBe(false)
    expect(compareWithReference(part, wrongUnchecked, p.k).correct).toBe(true)
    expect(compareWithReference(part, full.output.subarray(0, 8 * p.n), p.k).correct).toBe(false)
  })

  it('should reject rows outside 0..m-1', () => {
    expect(() => referenceWithBounds(p, weights, activations, [9])).toThrow(/0\.\.8/)
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
