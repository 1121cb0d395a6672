/**
 * The worked example of docs/writing-a-measurement-backend.md: a real (not simulated) backend
 * that times a matrix-vector product in JavaScript on this CPU. It stands in for an engine's
 * decode GEMV, so it says it is a proxy; only activation_dtype changes what it runs (f32 weights
 * for fp16/bf16, int8 weights for the fp8 values). Not registered by the apps: an example.
 */
import { KerneltuneError, type MeasurementBackend, type RepetitionMetrics } from '@kerneltune/core'

export const JS_GEMV_BACKEND = 'js-gemv'

const cancelled = () => new KerneltuneError('CANCELLED', 'the measurement was cancelled')

/** y = W x with W of rows × cols; the weights are f32, or int8 with one f32 scale. */
function gemv(weights: Float32Array | Int8Array, x: Float32Array, rows: number, cols: number, scale: number): number {
  let checksum = 0
  for (let r = 0; r < rows; r++) {
    let acc = 0
    const base = r * cols
    for (let c = 0; c < cols; c++) acc += weights[base + c]! * x[c]!
    checksum += acc * scale
  }
  return checksum
}

export function jsGemvBackend(options: { maxHidden?: number } = {}): MeasurementBackend {
  return {
    name: JS_GEMV_BACKEND,
    kind: 'measurement-backend',
    apiVersion: 1,
    description: 'A matrix-vector product in JavaScript on this CPU (a proxy of an engine\'s decode GEMV)',
    simulated: false,
    proxy: { engine: true, device: true, runs: 'a JavaScript GEMV' },
    exercises: ['activation_dtype'],
    available: () => ({ ok: true }),
    async measure(request) {
      if (!request.model) throw new KerneltuneError('INVALID_INPUT', 'the js-gemv backend needs the model of the run (its hiddenDim sets the matrix size)')
      if (request.signal?.aborted) throw cancelled()
      const n = Math.min(request.model.hiddenDim ?? 4096, options.maxHidden ?? 256)
      const int8 = request.combo.activation_dtype?.startsWith('fp8') ?? false
      const weights = int8 ? new Int8Array(n * n) : new Float32Array(n * n)
      for (let i = 0; i < weights.length; i++) weights[i] = int8 ? (i % 255) - 127 : ((i % 97) - 48) / 97
      const x = new Float32Array(n).map((_, i) => (i % 13) / 13)
      const repetitions: RepetitionMetrics[] = []
      let sink = 0
      for (let i = 0; i < request.warmups + request.repetitions; i++) {
        if (request.signal?.aborted) throw cancelled()
        const t0 = performance.now()
        sink += gemv(weights, x, n, n, int8 ? 1 / 127 : 1)
        const ms = performance.now() - t0
        // Warm-ups are run and dropped; every measured repetition is returned, none averaged.
        if (i >= request.warmups) repetitions.push({ latencyMs: Math.max(ms, 1e-6), throughputTps: 1000 / Math.max(ms, 1e-6) })
        request.onProgress?.(i + 1, request.warmups + request.repetitions)
        await new Promise((r) => setTimeout(r, 0)) // let an abort arrive between repetitions
      }
      return {
        backend: JS_GEMV_BACKEND,
        simulated: false,
        device: 'this CPU (JavaScript)',
        repetitions,
        notes: [`measured: one ${n}x${n} GEMV with ${int8 ? 'int8' : 'f32'} weights in JavaScript (checksum ${sink.toFixed(3)}); a proxy of the engine's kernel, not the engine`],
      }
    },
  }
}
