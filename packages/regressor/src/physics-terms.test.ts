import { describe, expect, it } from 'vitest'
import { PHYSICS_TERMS, baseName, calibrate, hardwareClass, int8KernelTops, mmqDecode, unitClockRate, effectCoef, effectKeys, kernelFlops, parseQuery, physicsBreakdown, pretrainedModel, queryBound, stepTerms, type PhysicsState, type ThroughputQueryInput } from './index.ts'
import { fitMultipliers, type Split } from './calibrate-physics.ts'


const term = (q: ThroughputQueryInput, name: (typeof PHYSICS_TERMS)[number]) => stepTerms(parseQuery(q)).phi[PHYSICS_TERMS.indexOf(name)]!
const gpu = { paramsB: 8, quant: 'Q4_0', memBwGbs: 1008, tflops: 330, vendor: 'nvidia' as const }

describe('physics terms', () => {
  it('should let sliding-window layers attend to at most their window', () => {
    const shapes = { kvBytesPerToken: 65536, attnFlopsPerToken: 262144 }
    const at = (slidingWindow?: { tokens: number; share: number }) => ({ ...gpu, ...shapes, phase: 'decode' as const, contextTokens: 32768, ...(slidingWindow ? { slidingWindow } : {}) })
    expect(term(at(), 'kv')).toBeCloseTo((32768 * 65536) / 1008e9, 12)
    // Every layer windowed at 128 tokens: the KV read is that of a 128-token context.
    expect(term(at({ tokens: 128, share: 1 }), 'kv')).toBeCloseTo((128 * 65536) / 1008e9, 12)
    // Half the layers windowed: half the full read plus half the window's.
    expect(term(at({ tokens: 128, share: 0.5 }), 'attn')).toBeCloseTo(((0.5 * 32768 + 0.5 * 128) * 262144) / 330e12, 12)
  })

  it('should key current-build GPU prefill products on their kernel family only when the variant asks for it', () => {
    const prefill = parseQuery({ ...gpu, phase: 'prefill', promptTokens: 512, backend: 'cuda' })
    const f16 = parseQuery({ ...gpu, quant: 'F16', phase: 'prefill', promptTokens: 512, backend: 'cuda' })
    const on = { mmKernels: true }
    expect(effectKeys(prefill, 'compute')).not.toContain('mm:quantized:cuda') // off by default (v3.1.0 assets)
    expect(effectKeys(prefill, 'compute', on)).toContain('mm:quantized:cuda') // MMQ
    expect(effectKeys(f16, 'compute', on)).toContain('mm:float:cuda') // cuBLAS
    expect(effectKeys(f16, 'mem', on).some((k) => k.startsWith('mm:'))).toBe(false) // products only
    expect(effectKeys(parseQuery({ ...gpu, phase: 'decode', backend: 'cuda' }), 'compute', on).some((k) => k.startsWith('mm:'))).toBe(false)
    expect(effectKeys(parseQuery({ ...gpu, phase: 'prefill', promptTokens: 512, engineEra: 'legacy' }), 'compute', on).some((k) => k.startsWith('mm:'))).toBe(false)
    expect(effectKeys(parseQuery({ ...gpu, phase: 'prefill', promptTokens: 512, device: 'cpu', vendor: 'intel' }), 'compute', on).some((k) => k.startsWith('mm:'))).toBe(false)
  })

  it('should time quantized GPU prefill at the int8 rate, with a binding exponent per backend, only with int8 kernels (issue 38)', () => {
    const on = { mmKernels: true, int8Kernels: true }
    const q4 = parseQuery({ ...gpu, int8Tops: 660, phase: 'prefill', promptTokens: 512, backend: 'cuda' })
    const flops = 2 * 8e9 * 512
    expect(stepTerms(q4, on).phi[PHYSICS_TERMS.indexOf('compute')]).toBeCloseTo(flops / 660e12, 12) // MMQ: int8 tensor cores
    expect(stepTerms(q4).phi[PHYSICS_TERMS.indexOf('compute')]).toBeCloseTo(flops / 330e12, 12) // off: the FP16 rate (v3.2.0)
    expect(effectKeys(q4, 'compute', on)).toContain('bind:fp16:cuda')
    // The exponent's covariate: log(int8 ÷ FP16), so w = 1 puts the product back at the FP16 rate.
    expect(effectCoef(q4, 'bind:fp16:cuda')).toBeCloseTo(Math.log(2), 12)
    expect(effectCoef(q4, 'era:current:cuda')).toBe(1)
    // F16 weights (cuBLAS), decode, legacy builds, CPUs and chips without an int8 figure keep the FP16 rate.
    const keep = [
      parseQuery({ ...gpu, int8Tops: 660, quant: 'F16', phase: 'prefill', promptTokens: 512 }),
      parseQuery({ ...gpu, int8Tops: 660 }),
      parseQuery({ ...gpu, int8Tops: 660, phase: 'prefill', promptTokens: 512, engineEra: 'legacy' }),
      parseQuery({ ...gpu, phase: 'prefill', promptTokens: 512 }),
    ]
    for (const q of keep) {
      expect(effectKeys(q, 'compute', on).some((k) => k.startsWith('bind:'))).toBe(false)
      expect(kernelFlops(q, on)).toBe(kernelFlops(q))
    }
  })

  it("should cap CUDA's MMQ rate at a GeForce SM's per-clock rate, and time decode above 8 sequences on MMQ (issue 38, fourth round)", () => {
    const on = { mmKernels: true, int8Kernels: true, moePrefill: true }
    const q4 = parseQuery({ ...gpu, int8Tops: 660, computeUnits: 128, clockMhz: 2520, phase: 'prefill', promptTokens: 512, backend: 'cuda' })
    expect(unitClockRate(q4)).toBeCloseTo((128 * 2520e6 * 2048) / 1e12, 9)
    // The 4090's int8 figure is its units × clock rate: the cap changes nothing there.
    expect(int8KernelTops(q4)).toBeCloseTo(660, 0)
    // The H100 SXM's (1,979 TOPS, 132 SMs at 1,980 MHz) is 4× that per SM and clock: MMQ gets the GeForce rate.
    const h100 = parseQuery({ ...gpu, tflops: 989, int8Tops: 1979, computeUnits: 132, clockMhz: 1980, phase: 'prefill', promptTokens: 512, backend: 'cuda' })
    expect(int8KernelTops(h100)).toBeCloseTo((132 * 1980e6 * 2048) / 1e12, 9)
    expect(kernelFlops(h100, on)).toBeCloseTo((132 * 1980e6 * 2048), 0)
    // Its FP16 matrix rate (989) is above that: the binding exponent cannot lift it (covariate 0).
    expect(effectCoef(h100, 'bind:fp16:cuda')).toBe(0)
    // Without a clock the preset's figure stands; ROCm's is never capped.
    expect(int8KernelTops(parseQuery({ ...gpu, int8Tops: 1979, computeUnits: 132, phase: 'prefill', promptTokens: 512, backend: 'cuda' }))).toBe(1979)
    expect(int8KernelTops(parseQuery({ ...gpu, vendor: 'amd', int8Tops: 1979, computeUnits: 132, clockMhz: 1980, phase: 'prefill', promptTokens: 512, backend: 'rocm' }))).toBe(1979)
    // Decode: MMVQ up to 8 sequences (the FP16 rate stands), MMQ from 9 on (the int8 rate), quantized weights and current builds only.
    const dec = (batch: number, extra: object = {}) => parseQuery({ ...gpu, int8Tops: 660, computeUnits: 128, clockMhz: 2520, backend: 'cuda', batch, ...extra })
    expect(mmqDecode(dec(8))).toBe(false)
    expect(kernelFlops(dec(8), on)).toBe(kernelFlops(dec(8)))
    expect(mmqDecode(dec(16))).toBe(true)
    expect(kernelFlops(dec(16), on)).toBeCloseTo(660e12, -10)
    expect(kernelFlops(dec(16))).toBe(gpu.tflops * 1e12) // only the int8 variants time it so
    expect(mmqDecode(dec(16, { quant: 'F16' }))).toBe(false)
    expect(mmqDecode(dec(16, { engineEra: 'legacy' }))).toBe(false)
    expect(mmqDecode(dec(16, { backend: 'vulkan' }))).toBe(false)
    // The binding exponent stays prefill's: batched decode gets no bind key.
    expect(effectKeys(dec(16), 'compute', on).some((k) => k.startsWith('bind:'))).toBe(false)
    // MoE prefill: its own products effect, per backend; dense prompts and MoE decode have none.
    const moe = parseQuery({ ...gpu, paramsB: 30, activeParamsB: 3, phase: 'prefill', promptTokens: 512, backend: 'cuda' })
    expect(effectKeys(moe, 'compute', on)).toContain('moe:prefill:cuda')
    expect(effectKeys(moe, 'mem', on).some((k) => k.startsWith('moe:'))).toBe(false)
    expect(effectKeys(moe, 'compute', { mmKernels: true }).some((k) => k.startsWith('moe:'))).toBe(false)
    expect(effectKeys(q4, 'compute', on).some((k) => k.startsWith('moe:'))).toBe(false)
    expect(effectKeys(parseQuery({ ...gpu, paramsB: 30, activeParamsB: 3, backend: 'cuda' }), 'compute', on).some((k) => k.startsWith('moe:'))).toBe(false)
  })

  it('should learn class effects apart for current builds where the variant asks, on the terms it names (issue 38, fourth round)', () => {
    const cur = parseQuery({ ...gpu, backend: 'cuda' })
    const old = parseQuery({ ...gpu, engineEra: 'legacy' })
    const pre = parseQuery({ ...gpu, backend: 'cuda', phase: 'prefill', promptTokens: 512 })
    const cls = `class:${hardwareClass(cur)}`
    // Off: one class effect for every build.
    expect(effectKeys(cur, 'mem')).toContain(cls)
    // decode: every term of a current build's decode step; prefill and legacy builds keep the shared one.
    for (const term of ['mem', 'kv', 'compute', 'layer'] as const) expect(effectKeys(cur, term, { currentClasses: 'decode' })).toContain(`${cls}:current`)
    expect(effectKeys(pre, 'mem', { currentClasses: 'decode' })).toContain(cls)
    expect(effectKeys(old, 'mem', { currentClasses: 'decode' })).toContain(cls)
    // memory: the memory and overhead terms of both phases; a prompt's products keep the shared one.
    for (const term of ['mem', 'kv', 'layer', 'step'] as const) expect(effectKeys(cur, term, { currentClasses: 'memory' })).toContain(`${cls}:current`)
    expect(effectKeys(pre, 'act', { currentClasses: 'memory' })).toContain(cls)
    expect(effectKeys(pre, 'mem', { currentClasses: 'memory' })).toContain(`${cls}:current`)
    expect(effectKeys(pre, 'compute', { currentClasses: 'memory' })).toContain(cls)
    expect(effectKeys(cur, 'compute', { currentClasses: 'memory' })).toContain(cls)
    expect(effectKeys(old, 'mem', { currentClasses: 'memory' })).toContain(cls)
    // A CPU keeps its own keys.
    const cpu = parseQuery({ ...gpu, device: 'cpu', backend: 'cpu' })
    expect(effectKeys(cpu, 'mem', { currentClasses: 'memory' })).toContain('class:cpu')
  })

  it("should keep AMD's HBM parts apart from its Radeon cards (issue 38, third round)", () => {
    const amd = { ...gpu, vendor: 'amd' as const }
    expect(hardwareClass(parseQuery({ ...amd, memBwGbs: 1024 }))).toBe('amd-hbm') // MI50
    expect(hardwareClass(parseQuery({ ...amd, memBwGbs: 5300 }))).toBe('amd-hbm') // MI300X
    expect(hardwareClass(parseQuery({ ...amd, memBwGbs: 960 }))).toBe('amd-gpu') // RX 7900 XTX
    expect(hardwareClass(parseQuery({ ...amd, memBwGbs: 256, unifiedMemory: true }))).toBe('amd-unified') // Strix Halo
    expect(hardwareClass(parseQuery({ ...gpu, vendor: 'intel', memBwGbs: 1024 }))).toBe('intel-gpu')
  })

  it('should charge the F16 weight copy and the attention scores to legacy builds only', () => {
    const prefill = { ...gpu, phase: 'prefill' as const, promptTokens: 512 }
    expect(term({ ...prefill, engineEra: 'legacy' }, 'dqcopy')).toBeGreaterThan(0)
    expect(term({ ...prefill, engineEra: 'legacy' }, 'score')).toBeGreaterThan(0)
    expect(term(prefill, 'dqcopy')).toBe(0) // current builds: integer MMQ kernels, flash attention
    expect(term(prefill, 'score')).toBe(0)
    expect(term({ ...prefill, engineEra: 'legacy', quant: 'F16' }, 'dqcopy')).toBe(0) // nothing to dequantize
    expect(term({ ...prefill, engineEra: 'legacy', vendor: 'apple', unifiedMemory: true }, 'dqcopy')).toBe(0) // Metal dequantizes in its kernel
  })

  it('should time quantized prefill by the kernels each backend has on current builds (issue 38)', () => {
    const on = { mmKernels: true, int8Kernels: true }
    const prefill = { ...gpu, phase: 'prefill' as const, promptTokens: 512 }
    const flops = 2 * 8e9 * 512
    // SYCL has no integer matrix kernel: dequantize to F16 (the copy is paid) and multiply at the FP16 matrix rate.
    const sycl = parseQuery({ ...prefill, vendor: 'intel', backend: 'sycl', tflops: 183.5, int8Tops: 91.8, fp16VectorTflops: 45.9 })
    expect(term(sycl, 'dqcopy')).toBeCloseTo((8e9 * 4) / 1008e9, 12)
    expect(kernelFlops(sycl, on)).toBe(183.5e12)
    expect(effectKeys(sycl, 'compute', on).some((k) => k.startsWith('bind:'))).toBe(false)
    // Vulkan on a chip with matrix units (Xe2's XMX, NVIDIA's tensor cores): cooperative matrices, no MMQ
    // pipelines, so quantized tiles are dequantized into the FP16 matrix multiply (no F16 copy in memory).
    const vk = parseQuery({ ...sycl, backend: 'vulkan' })
    expect(term(vk, 'dqcopy')).toBe(0)
    expect(stepTerms(vk, on).phi[PHYSICS_TERMS.indexOf('compute')]).toBeCloseTo(flops / 183.5e12, 12)
    expect(effectKeys(vk, 'compute', on).some((k) => k.startsWith('bind:'))).toBe(false)
    const nvVk = parseQuery({ ...prefill, backend: 'vulkan', int8Tops: 660 })
    expect(stepTerms(nvVk, on).phi[PHYSICS_TERMS.indexOf('compute')]).toBeCloseTo(flops / 330e12, 12)
    // Vulkan on a chip without them (an RDNA 2 or GCN card, figures given): MMQ's packed int8 dot products
    // on the shader ALUs, twice the packed FP16 rate.
    const alu = parseQuery({ ...prefill, vendor: 'amd', backend: 'vulkan', tflops: 26.5, int8Tops: 53, fp16VectorTflops: 26.5 })
    expect(stepTerms(alu, on).phi[PHYSICS_TERMS.indexOf('compute')]).toBeCloseTo(flops / 53e12, 12)
    expect(effectCoef(alu, 'bind:fp16:vulkan')).toBeCloseTo(Math.log(53 / 26.5), 12)
    // CUDA on a chip whose kernel figures give no int8 rate (P100, V100 at prompt batches): cuBLAS on an F16 copy.
    expect(term({ ...prefill, backend: 'cuda', tflops: 18.7, fp16VectorTflops: 18.7 }, 'dqcopy')).toBeGreaterThan(0)
    expect(term({ ...prefill, backend: 'cuda', int8Tops: 660 }, 'dqcopy')).toBe(0) // MMQ reads the quantized blocks
    expect(term({ ...prefill, backend: 'cuda' }, 'dqcopy')).toBe(0) // no kernel figures: taken as an MMQ chip
  })

  it('should add the power-limited compute time of prefill only where the board power is known', () => {
    const prefill = { ...gpu, phase: 'prefill' as const, promptTokens: 512 }
    expect(term(prefill, 'energy')).toBe(0)
    expect(term({ ...prefill, tdpWatts: 450 }, 'energy')).toBeCloseTo((2 * 8e9 * 512 * 1e-12) / 450, 12)
    expect(term({ ...gpu, tdpWatts: 450 }, 'energy')).toBe(0) // decode is not compute-bound
  })

  it('should give a CPU its own overhead multipliers and build-age effects per backend', () => {
    const cpu = parseQuery({ ...gpu, memBwGbs: 40, tflops: 0.3, vendor: 'intel', device: 'cpu' })
    const g = parseQuery(gpu)
    expect(baseName(cpu, 'layer')).toBe('decode.layer@cpu')
    expect(baseName(g, 'layer')).toBe('decode.layer')
    expect(baseName(cpu, 'mem')).toBe('any.mem') // streaming weights is shared by both phases and devices
    expect(effectKeys(g, 'mem')).toContain('era:current:cuda')
    expect(effectKeys(parseQuery({ ...gpu, engineEra: 'legacy' }), 'mem')).not.toContain('era:current:cuda')
    const apple2023 = { ...gpu, vendor: 'apple' as const, engineEra: 'legacy-2023' as const }
    expect(effectKeys(parseQuery({ ...apple2023, phase: 'prefill' }), 'compute')).toContain('era:2023:metal')
    expect(effectKeys(parseQuery(apple2023), 'compute')).not.toContain('era:2023:metal')
    // Prefill's matrix-product rate carries no weight-format effect; decode's does.
    expect(effectKeys(parseQuery({ ...gpu, phase: 'prefill' }), 'compute').some((k) => k.startsWith('quant:'))).toBe(false)
    expect(effectKeys(g, 'compute')).toContain('quant:Q4_0')
  })

  it("should multiply at the rate of a CPU's instructions in decode: int8 dot products, ARM FP16 FMAs", () => {
    const cpu = { paramsB: 0.24, memBwGbs: 40, tflops: 0.166, device: 'cpu' as const }
    const rate = (q: ThroughputQueryInput) => kernelFlops(parseQuery(q)) / 0.166e12
    expect(rate({ ...cpu, quant: 'Q8_0', vendor: 'amd' })).toBeCloseTo(4, 9) // VNNI / SDOT: 4 int8 multiply-adds per lane
    expect(rate({ ...cpu, quant: 'F16', vendor: 'amd' })).toBeCloseTo(1, 9) // x86: F16C converts, FP32 FMAs
    expect(rate({ ...cpu, quant: 'F16', vendor: 'apple' })).toBeCloseTo(2, 9) // ARM: native FP16 FMAs
    expect(rate({ ...cpu, quant: 'Q4_0', phase: 'prefill' })).toBeCloseTo(1, 9) // prefill keeps the FP32 rate
    expect(kernelFlops(parseQuery(gpu))).toBe(330e12)
    // A CPU's format effects are not a GPU's.
    expect(effectKeys(parseQuery({ ...cpu, quant: 'Q4_0' }), 'compute')).toContain('cpu-quant:Q4_0')
    expect(effectKeys(parseQuery({ ...cpu, quant: 'Q4_0' }), 'compute')).not.toContain('quant:Q4_0')
  })

  it('should bound a quantized model on a CPU by its int8 dot-product rate, 4x the FP32 figure', () => {
    const q = { paramsB: 0.24, memBwGbs: 40, tflops: 0.166, phase: 'prefill' as const, promptTokens: 512, device: 'cpu' as const }
    const int8 = queryBound(parseQuery({ ...q, quant: 'Q4_0' }))
    const f16 = queryBound(parseQuery({ ...q, quant: 'F16' }))
    expect(int8.binding).toBe('compute')
    expect(int8.boundTps / f16.boundTps).toBeCloseTo(4, 6)
  })
})

describe('physics calibration per weight format', () => {
  it('should recover a format whose kernels run twice as fast, shrunk towards the shared factor', () => {
    const splits: Split[] = []
    const times: number[] = []
    for (const format of ['Q8_0', 'Q4_0']) {
      for (const [work, overhead] of [[1, 0.5], [2, 0.5], [4, 0.5]] as const) {
        splits.push({ tokens: 1, work, overhead, format })
        times.push((format === 'Q4_0' ? 0.5 : 1) * work + overhead)
      }
    }
    const wide = fitMultipliers(splits, times, 100)
    expect(wide.byFormat.Q4_0! / wide.byFormat.Q8_0!).toBeCloseTo(0.5, 2)
    expect(wide.overhead).toBeCloseTo(1, 2)
    const narrow = fitMultipliers(splits, times, 0.5)
    expect(narrow.byFormat.Q4_0! / narrow.byFormat.Q8_0!).toBeGreaterThan(0.5) // the prior pulls them together
    // One format measured: no offsets, its factor is the shared one.
    expect(fitMultipliers(splits.slice(0, 3), times.slice(0, 3)).byFormat).toEqual({})
  })

  it('should store the per-format factors as corrections the calibrated model applies', () => {
    // A CPU on which Q4_0's work takes half the time the pretrained model says and Q8_0's as it says.
    const model = pretrainedModel()
    const hw = { memBwGbs: 40, tflops: 0.166, unifiedMemory: true, vendor: 'intel' as const, device: 'cpu' as const, phase: 'prefill' as const, promptTokens: 256 }
    const machine = (quant: string, paramsB: number, layers: number) => {
      const query = { ...hw, quant, paramsB, layers }
      const { tokens, seconds } = physicsBreakdown(model.json.physics as PhysicsState, parseQuery(query))
      const t = Object.entries(seconds).reduce((s, [k, v]) => s + v * (k === 'layer' || k === 'step' ? 1 : quant === 'Q4_0' ? 0.5 : 1), 0)
      return { query, measuredTps: tokens / t }
    }
    const sizes = [[0.015, 8], [0.06, 12], [0.24, 14]] as const
    const { result, model: calibrated } = calibrate(model, ['Q8_0', 'Q4_0'].flatMap((quant) => sizes.map(([p, l]) => machine(quant, p, l))))
    expect(result.formatFactors!.Q4_0! / result.formatFactors!.Q8_0!).toBeGreaterThan(1.6)
    expect(result.corrections[`${result.hardwareKey}|quant:Q4_0`]).toBe(result.formatFactors!.Q4_0)
    for (const quant of ['Q8_0', 'Q4_0']) {
      const held = machine(quant, 0.03, 10) // a size no fit saw
      expect(Math.abs(calibrated.predict(held.query).predictedTps / held.measuredTps - 1)).toBeLessThan(0.1)
    }
  })
})
