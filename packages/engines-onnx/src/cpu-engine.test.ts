import { describe, expect, it } from 'vitest'
import { CORE_DIMENSION_VALUES, type Refusal, type Translation } from '@kerneltune/core'
import { coreCombos, inventoryProblems, productOf, testEngine } from '@kerneltune/engine-conformance'
import { CPU_CONFIG_KEYS, onnxEngine, ORT_CPU_DIMENSIONS, ORT_CPU_VERSIONS, PROVIDER_FILE, SESSION_FILE } from './index.ts'

const cpu = (installedVersion?: string) => onnxEngine({ provider: 'cpu', ...(installedVersion === undefined ? {} : { installedVersion }) })
const singles = ORT_CPU_DIMENSIONS.flatMap((d) => d.values.map((x) => ({ [d.id]: x.id })))

testEngine({
  engine: () => cpu(),
  combos: [
    ...coreCombos(), ...singles,
    ...productOf({ fusion_strategy: CORE_DIMENSION_VALUES.fusion_strategy, ort_execution_mode: ['sequential', 'parallel'], ort_intra_op_threads: ['auto', '2'], ort_cpu_mem_arena: ['on', 'off'], ort_matmulnbits_accuracy: ['model', '4'] }),
  ],
})

const session = (r: unknown) => JSON.parse((r as Translation).files[SESSION_FILE] ?? '{}') as Record<string, string>

describe('onnxEngine (CPU execution provider)', () => {
  it('should write every session option with the name and value the binding takes', () => {
    const r = cpu().translate({
      fusion_strategy: 'conservative', ort_execution_mode: 'parallel', ort_intra_op_threads: '2', ort_inter_op_threads: '1',
      ort_cpu_mem_arena: 'off', ort_mem_pattern: 'off', ort_intra_op_spinning: 'off', ort_matmulnbits_accuracy: '4',
    })
    expect(session(r)).toEqual({
      graphOptimizationLevel: 'basic', executionMode: 'parallel', intraOpNumThreads: '2', interOpNumThreads: '1',
      enableCpuMemArena: '0', enableMemPattern: '0', [CPU_CONFIG_KEYS.intraOpSpinning]: '0', [CPU_CONFIG_KEYS.qdqMatMulNBitsAccuracyLevel]: '4',
    })
    expect(JSON.parse((r as Translation).files[PROVIDER_FILE]!)).toEqual({ providers: ['CPUExecutionProvider'], provider_options: [{}] })
    expect(session(cpu().translate({ fusion_strategy: 'none' }))).toEqual({ graphOptimizationLevel: 'disabled' })
    expect(session(cpu().translate({ fusion_strategy: 'aggressive', ort_intra_op_threads: 'auto' }))).toEqual({ graphOptimizationLevel: 'all', intraOpNumThreads: '0' })
    expect(cpu().translate({}).ok && (cpu().translate({}) as Translation).files[SESSION_FILE]).toBe(undefined)
  })

  it('should note that inter-op threads do nothing in the sequential mode, and that the accuracy level reaches MatMulNBits nodes through the backend', () => {
    expect((cpu().translate({ ort_inter_op_threads: '2' }) as Translation).notes.join(' ')).toMatch(/no effect in the sequential execution mode/)
    expect((cpu().translate({ ort_inter_op_threads: '2', ort_execution_mode: 'parallel' }) as Translation).notes.join(' ')).not.toMatch(/no effect/)
    expect((cpu().translate({ ort_matmulnbits_accuracy: '4' }) as Translation).notes.join(' ')).toMatch(/accuracy_level attribute/)
  })

  it('should refuse the CUDA-only core dimensions and values outside each dimension', () => {
    expect((cpu().translate({ cuda_graph: 'off' }) as Refusal)).toMatchObject({ ok: false, dimension: 'cuda_graph' })
    expect((cpu().translate({ attention_backend: 'native' }) as Refusal).reason).toMatch(/has no control/)
    expect((cpu().translate({ ort_intra_op_threads: '3' }) as Refusal)).toMatchObject({ ok: false, dimension: 'ort_intra_op_threads' })
    expect(() => cpu().translate({}, { options: { provider: 'cuda' } })).toThrow(/CPU execution provider/)
  })

  it('should catch a misspelled session option, config key or value in a translation (the inventory check can fail)', () => {
    const ok = cpu().translate({ ort_execution_mode: 'parallel' }) as Translation
    const withSession = (s: Record<string, string>) => ({ ...ok, files: { ...ok.files, [SESSION_FILE]: JSON.stringify(s) } })
    const inventory = cpu().inventory(ORT_CPU_VERSIONS[0])!
    expect(inventoryProblems(ok, inventory)).toEqual([])
    expect(inventoryProblems(withSession({ graphOptimisationLevel: 'all' }), inventory)).toEqual(['session option graphOptimisationLevel is not in the 1.30.0 inventory'])
    expect(inventoryProblems(withSession({ executionMode: 'paralel' }), inventory)).toEqual(['executionMode=paralel is not a value 1.30.0 takes'])
    expect(inventoryProblems(withSession({ 'session.intra_op.allow_spining': '0' }), inventory)).toEqual(['session config key session.intra_op.allow_spining is not in the 1.30.0 inventory'])
    expect(inventoryProblems(withSession({ [CPU_CONFIG_KEYS.qdqMatMulNBitsAccuracyLevel]: '5' }), inventory)).toHaveLength(1)
  })

  it('should default to the installed onnxruntime-node release when it is a checked one, else the newest checked', () => {
    expect(cpu('1.30.0').defaultVersion).toBe('1.30')
    expect(cpu().defaultVersion).toBe(ORT_CPU_VERSIONS[0])
    expect(cpu('1.31.2').defaultVersion).toBe(ORT_CPU_VERSIONS[0])
    // The GPU providers' releases do not include 1.30 (their libraries were not read), so 1.29 stays.
    expect(onnxEngine({ installedVersion: '1.30.0' }).defaultVersion).toBe('1.29')
    expect(onnxEngine({ installedVersion: '1.19.2' }).defaultVersion).toBe('1.19')
  })
})
