import { describe, expect, it } from 'vitest'
import { backendOf, effectKeys, intervalRegime, parseQuery, queryBound, stepTerms } from './index.ts'

const card = { paramsB: 8, quant: 'Q4_0', memBwGbs: 1008, tflops: 330, vendor: 'nvidia' as const }

describe('backend, vendor and file bits in the query (issue 26)', () => {
  it('should take the backend from the query, else the vendor\'s usual one', () => {
    expect(backendOf(parseQuery(card))).toBe('cuda')
    expect(backendOf(parseQuery({ ...card, backend: 'vulkan' }))).toBe('vulkan')
    expect(backendOf(parseQuery({ ...card, vendor: 'apple' }))).toBe('metal')
    expect(backendOf(parseQuery({ ...card, vendor: 'intel' }))).toBe('sycl')
    // The backend is an effect on the multipliers of current builds: CUDA and Vulkan learn apart.
    expect(effectKeys(parseQuery({ ...card, backend: 'vulkan' }), 'mem')).toContain('era:current:vulkan')
    expect(effectKeys(parseQuery(card), 'mem')).toContain('era:current:cuda')
  })

  it('should run a cpu-backend query on the CPU', () => {
    expect(parseQuery({ ...card, backend: 'cpu' }).device).toBe('cpu')
    expect(parseQuery({ ...card, backend: 'cuda' }).device).toBeUndefined()
  })

  it('should reject an unknown backend or vendor with the accepted values', () => {
    expect(() => parseQuery({ ...card, backend: 'opencl' })).toThrow(/cuda.*metal.*vulkan.*rocm.*sycl.*cpu/)
    expect(() => parseQuery({ ...card, vendor: 'qualcomm' })).toThrow(/nvidia.*amd.*apple.*intel.*other/)
  })

  it('should read a mixed-format file at its average bits per weight', () => {
    // A "Q2_K" file of 2.9 bits per weight streams more bytes than Q2_K's 2.625: slower bound and weight term.
    const q2 = parseQuery({ ...card, quant: 'Q2_K' })
    const file = parseQuery({ ...card, quant: 'Q2_K', bitsPerWeight: 2.9 })
    expect(queryBound(file).boundTps).toBeLessThan(queryBound(q2).boundTps)
    expect(queryBound(q2).boundTps / queryBound(file).boundTps).toBeCloseTo(2.9 / 2.625, 2)
    expect(stepTerms(file).phi[0]! / stepTerms(q2).phi[0]!).toBeCloseTo(2.9 / 2.625, 6)
  })

  it('should read the weights once per micro-batch (n_ubatch)', () => {
    const pp = { ...card, phase: 'prefill' as const, promptTokens: 512 }
    expect(stepTerms(parseQuery({ ...pp, ubatch: 16 })).phi[0]! / stepTerms(parseQuery({ ...pp, ubatch: 512 })).phi[0]!).toBeCloseTo(32, 6)
  })

  it('should give a query that extrapolates an interval cell of its own', () => {
    const q = parseQuery(card)
    expect(intervalRegime(q, true)).toBe(`${intervalRegime(q)}|x`)
  })
})
