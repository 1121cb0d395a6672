import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRegistry, isKerneltuneError } from '@kerneltune/core'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { getLlama } from 'node-llama-cpp'
import { llamacppBackend } from './node-llama-cpp.node.ts'
import { releaseWithin } from './release.ts'

// A synthetic llama of about 1 MB (Q8_0, vocabulary 320): random weights, so the text it writes
// is meaningless, but llama.cpp runs it exactly as it would run a trained model of this shape.
const dir = mkdtempSync(join(tmpdir(), 'llamacpp-'))
const modelPath = join(dir, 'tiny-q8_0.gguf')

describe('llamacppBackend (node-llama-cpp, CPU build)', () => {
  const backend = llamacppBackend({ modelPath, promptTokens: 32, genTokens: 8 })

  beforeAll(async () => {
    await writeGgufFile(modelPath, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 11 }).file)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('should register as a real (not simulated) measurement backend and load llama.cpp here', async () => {
    const registry = createRegistry([backend])
    expect(registry.get('measurement-backend', 'llamacpp').simulated).toBe(false)
    expect(await backend.available!()).toEqual({ ok: true })
  })

  it('should load the synthetic GGUF and measure every repetition after the warm-ups', async () => {
    const progress: number[] = []
    const result = await backend.measure({ combo: { threads: '1', flash_attn: 'on' }, warmups: 1, repetitions: 2, onProgress: (d) => progress.push(d) })
    expect(result).toMatchObject({ backend: 'llamacpp', simulated: false })
    expect(result.device).toMatch(/^CPU: .*llama\.cpp/)
    expect(result.repetitions).toHaveLength(2)
    expect(progress).toEqual([1, 2, 3])
    for (const rep of result.repetitions) {
      for (const v of [rep.prefillTps, rep.decodeTps, rep.ttftMs, rep.latencyMs, rep.throughputTps]) {
        expect(Number.isFinite(v) && v! > 0).toBe(true)
      }
      expect(rep.peakMemoryBytes).toBeGreaterThanOrEqual(0)
      // Time to first token covers the whole prompt; the whole run covers it plus decoding.
      expect(rep.latencyMs).toBeGreaterThan(rep.ttftMs!)
    }
    expect(result.notes!.join('\n')).toMatch(/threads 1/)
    // Two measured repetitions (the warm-up is not one): what the experiment designs summarise.
    expect(result.repetitions).toHaveLength(2)
  })

  it('should apply the cache types, and refuse a quantized V cache without flash attention before loading the model', async () => {
    const ok = await backend.measure({ combo: { threads: '1', cache_type_k: 'q8_0', cache_type_v: 'q8_0' }, warmups: 0, repetitions: 1 })
    expect(ok.repetitions).toHaveLength(1)
    const err = await backend
      .measure({ combo: { threads: '1', cache_type_v: 'q4_0', flash_attn: 'off' }, warmups: 0, repetitions: 1 })
      .then(() => undefined, (e: unknown) => e)
    expect(isKerneltuneError(err) && err.code).toBe('UNSUPPORTED_COMBINATION')
    expect((err as Error).message).toMatch(/quantized V cache requires flash attention.*llama-context\.cpp/)
  })

  // The evidence for that refusal, and for release.ts: llama.cpp itself refuses the context, and once
  // the collector has taken node-llama-cpp's orphaned context, the model's dispose never settles.
  it('should see llama.cpp refuse that context, and give the model up at the deadline rather than hang', async () => {
    const llama = await getLlama({ gpu: false, build: 'never', maxThreads: 0, logLevel: 'error' as never, progressLogs: false })
    const model = await llama.loadModel({ modelPath })
    const failed = await model
      .createContext({ contextSize: 64, flashAttention: false, experimentalKvCacheValueType: 'Q4_0', ignoreMemorySafetyChecks: true, failedCreationRemedy: false } as never)
      .then(() => 'created', (e: Error) => e.message)
    expect(failed).toBe('Failed to create context')
    const forced = await collectGarbage()
    // Settling at all is the point: without the deadline this await never returns.
    const released = await releaseWithin(() => model.dispose(), 1000)
    // Where the runtime lets the test force a full collection, the orphan is gone and the leak shows.
    if (forced) expect(released).toBe(false)
  })

  it('should load and run F16 and Q4_0 models as well', async () => {
    for (const quant of ['F16', 'Q4_0'] as const) {
      const path = join(dir, `tiny-${quant}.gguf`)
      await writeGgufFile(path, synthLlama({ params: 1e6, vocabSize: 320, quant, seed: 12 }).file)
      const r = await llamacppBackend({ modelPath: path, promptTokens: 16, genTokens: 4 }).measure({ combo: { threads: '1' }, warmups: 0, repetitions: 1 })
      expect([quant, r.repetitions[0]!.decodeTps! > 0]).toEqual([quant, true])
    }
  })

  it('should take prompt and generation lengths from the workload', async () => {
    const r = await backend.measure({
      combo: { threads: '1' },
      workload: { batch: 1, phase: 'decode', promptTokens: 16, generatedTokens: 4, cudaGraphs: false },
      warmups: 0,
      repetitions: 1,
    })
    expect(r.notes!.join('\n')).toMatch(/16 prompt tokens, 4 generated/)
  })

  it('should report a missing model file as a measurement failure naming it', async () => {
    const missing = llamacppBackend({ modelPath: join(dir, 'nope.gguf') })
    const err = await missing.measure({ combo: {}, warmups: 0, repetitions: 1 }).then(() => undefined, (e: unknown) => e)
    expect(isKerneltuneError(err) && err.code).toBe('MEASUREMENT_FAILED')
    expect(String((err as Error).message)).toContain('nope.gguf')
  })

  it('should say a file is not a GGUF without quoting its first bytes', async () => {
    const passwd = join(dir, 'passwd')
    writeFileSync(passwd, 'root:x:0:0:root:/root:/bin/bash\n')
    const err = await llamacppBackend({ modelPath: passwd }).measure({ combo: {}, warmups: 0, repetitions: 1 }).then(() => undefined, (e: unknown) => e)
    expect(isKerneltuneError(err) && err.code).toBe('MEASUREMENT_FAILED')
    expect((err as Error).message).toMatch(/not a GGUF file/)
    expect((err as Error).message).not.toMatch(/root"|got/)
    // What node-llama-cpp itself says, kept as the cause.
    expect(String(((err as Error).cause as Error).message)).toMatch(/^Invalid GGUF magic/)
  })
})

/** A forced full collection where the runtime offers one (Bun, or Node's V8 flag); false where not. */
async function collectGarbage(): Promise<boolean> {
  const bun = (globalThis as { Bun?: { gc(sync: boolean): void } }).Bun
  if (bun) {
    bun.gc(true)
    return true
  }
  try {
    const { setFlagsFromString } = await import('node:v8')
    const { runInNewContext } = await import('node:vm')
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    gc()
    return true
  } catch {
    return false
  }
}
