/**
 * Shared fixtures of the tuner's tests: a permissive engine plugin, a simulated backend, a model, a
 * device. The tuner does not depend on @kerneltune/backends (the arrow points the other way), so
 * its tests bring their own backend.
 */
import { KerneltuneError, type EnginePlugin, type MeasurementBackend, type RepetitionMetrics } from '@kerneltune/core'

export const testEngine = (name = 'vllm'): EnginePlugin => ({
  name, kind: 'engine', apiVersion: 1, displayName: 'Test engine', defaultVersion: '0.6.0',
  supportedVersions: () => ['0.6.0'],
  translate: (combo, ctx) => ({ ok: true, engine: name, version: ctx?.version ?? '0.6.0', argv: Object.entries(combo).map(([k, v]) => `--${k}=${v}`), env: {}, files: {}, notes: [] }),
})

const cancelled = () => new KerneltuneError('CANCELLED', 'the measurement was cancelled')
const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) return reject(cancelled())
  const t = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms)
  const onAbort = () => (clearTimeout(t), reject(cancelled()))
  signal?.addEventListener('abort', onAbort, { once: true })
})

/**
 * A simulated backend named 'analytical' (the name the test requests use) in which only
 * activation_dtype matters: fp8 halves the latency, every other dimension predicts identical
 * numbers. `delayMs` per repetition makes a run slow enough to interrupt.
 */
export const testBackend = (options: { delayMs?: number } = {}): MeasurementBackend => ({
  name: 'analytical', kind: 'measurement-backend', apiVersion: 1, simulated: true,
  async measure(request) {
    const latencyMs = request.combo.activation_dtype?.startsWith('fp8') ? 5 : 10
    const repetitions: RepetitionMetrics[] = []
    for (let i = 0; i < request.repetitions; i++) {
      if (options.delayMs) await sleep(options.delayMs, request.signal)
      else if (request.signal?.aborted) throw cancelled()
      repetitions.push({ latencyMs, throughputTps: 1000 / latencyMs })
    }
    return { backend: 'analytical', simulated: true, device: 'test fixture (simulated)', repetitions }
  },
})

export const MODEL = { name: 'tiny', paramsB: 1.1, hiddenDim: 2048, numLayers: 22, numHeads: 32, numKvHeads: 4, intermediateDim: 5632, quant: 'F16' as const }
export const HARDWARE = { name: 'NVIDIA H100 SXM', vendor: 'nvidia' as const, memBwGbs: 3350, fp16Tflops: 989, computeCapability: '9.0' }
