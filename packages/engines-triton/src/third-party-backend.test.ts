import { describe, expect, it } from 'vitest'
import { createRegistry, refusal, type Combo, type EnginePlugin, type TranslateResult, type Translation } from '@kerneltune/core'
import { inventoryProblems, testEngine } from '@kerneltune/engine-conformance'
import { tritonEngine } from './index.ts'

/**
 * A third-party engine that Triton knows nothing about, written only against @kerneltune/core:
 * it serves its models as Triton's `python` backend, picking an attention kernel by a model
 * config parameter and a thread count by an environment variable.
 */
function toyEngine(): EnginePlugin {
  const plan = (combo: Combo) =>
    combo.attention_backend === 'xformers'
      ? { ok: false as const, dimension: 'attention_backend', reason: 'toy has no xformers kernels' }
      : { ok: true as const, args: { attention: combo.attention_backend ?? 'auto', max_batch: 8 }, env: { TOY_THREADS: '4' }, notes: ['toy kernels are picked per model'] }
  return {
    name: 'toy',
    kind: 'engine',
    apiVersion: 1,
    displayName: 'Toy LLM',
    defaultVersion: '2.1',
    supportedVersions: () => ['2.1', '2.0'],
    controls: ['attention_backend'],
    inventory: () => ({ flags: { '--attention': { type: 'str' } }, env: { TOY_THREADS: { type: 'int' } } }),
    translate(combo: Combo, context = {}): TranslateResult {
      const p = plan(combo)
      const version = context.version ?? '2.1'
      if (!p.ok) return refusal('toy', version, p.dimension, combo[p.dimension]!, p.reason)
      return { ok: true, engine: 'toy', version, argv: ['toy', '--attention', String(p.args.attention)], env: p.env, files: {}, notes: p.notes }
    },
    tritonBackend: { backend: 'python', plan },
  }
}

const registry = createRegistry([toyEngine()])
const triton = () => tritonEngine({ backend: 'python', engines: registry })

// The conformance suite every engine passes, with Triton serving through the third-party backend.
testEngine({ engine: triton })

describe('tritonEngine with a third-party backend provider', () => {
  it("should write the provider's model into the repository: backend name, parameters and environment", () => {
    const r = triton().translate({ attention_backend: 'flashinfer' }, { model: 'm' }) as Translation
    expect(r).toMatchObject({ ok: true, argv: ['tritonserver', '--model-repository=model_repository'], env: { TOY_THREADS: '4' } })
    expect(Object.keys(r.files)).toEqual(['model_repository/python_model/config.pbtxt'])
    const config = r.files['model_repository/python_model/config.pbtxt']!
    expect(config).toMatch(/^backend: "python"\n/)
    expect(config).toContain('kind: KIND_MODEL')
    expect(config).toMatch(/key: "attention"\n {2}value: \{ string_value: "flashinfer" \}/)
    expect(config).toMatch(/key: "max_batch"\n {2}value: \{ string_value: "8" \}/)
    expect(r.notes).toEqual(['backend: python', 'Toy LLM 2.1 (engine toy) serves the model as Triton\'s python backend.', 'toy kernels are picked per model'])
    expect(inventoryProblems(r, triton().inventory('1.0')!)).toEqual([])
  })

  it("should refuse what the provider refuses, naming the backend and the provider's version", () => {
    expect(triton().translate({ attention_backend: 'xformers' }, { options: { toyVersion: '2.0' } })).toMatchObject({
      ok: false, dimension: 'attention_backend', value: 'xformers', reason: 'with the python backend (Toy LLM 2.0): toy has no xformers kernels',
    })
    expect(() => triton().translate({}, { options: { toyVersion: '1.0' } })).toThrow(/Toy LLM version 1\.0 is not supported for the Triton python backend; supported versions: 2\.1, 2\.0/)
  })

  it('should offer exactly the backends the registry provides, and none without a registry', () => {
    expect(() => tritonEngine({ engines: registry }).translate({})).toThrow(/Triton backend tensorrtllm is not supported; supported backends: python$/)
    expect(() => tritonEngine().translate({})).toThrow(/no engine in the registry provides a Triton backend/)
    expect(tritonEngine().inventory('1.0')).toBeUndefined()
  })

  it('should find a provider registered after Triton, through the registry it was given', () => {
    const late = createRegistry()
    const t = late.register(tritonEngine({ backend: 'python', engines: late }))
    expect(() => t.translate({})).toThrow(/supported backends: \(none/)
    late.register(toyEngine())
    expect(t.translate({})).toMatchObject({ ok: true, notes: expect.arrayContaining(['backend: python']) })
  })

  it('should reject a provider without a plan or with a backend name Triton cannot write', () => {
    const bad = (tritonBackend: unknown) => () => createRegistry([{ ...toyEngine(), tritonBackend } as EnginePlugin])
    expect(bad({ backend: 'python' })).toThrow(/missing required members.*tritonBackend/)
    expect(bad({ backend: 'Py"thon', plan: () => ({}) })).toThrow(/a Triton backend name/)
  })
})
