/**
 * The analytical measurement backend: a roofline prediction, never a measurement. Every result it
 * returns has `simulated: true`, and the run stores that flag with each combination.
 *
 * What it models: the decode (or prefill) roofline of the model on the hardware, where the only
 * catalog dimension with a modelled effect is `activation_dtype`, which sets the KV-cache element
 * size (fp8 → 1 byte, fp16/bf16 → 2). The other dimensions have no term in a roofline, so combos
 * that differ only in them predict the same numbers; Tier 1 then reports them as insensitive.
 */
import { KerneltuneError, type MeasurementBackend, type MeasurementRequest, type MeasurementResult, type RepetitionMetrics } from '@kerneltune/core'
import { decodeBound, prefillBound } from '@kerneltune/roofline'

export const ANALYTICAL_BACKEND = 'analytical'

export interface AnalyticalBackendOptions {
  /**
   * Waits this long per repetition before answering. A test aid that makes a session slow enough
   * to be interrupted (the crash/resume test); it changes no number.
   */
  readonly delayMs?: number
  /**
   * Dimensions that only change how a live server schedules requests (an engine's slots or
   * batching policy): the roofline has no term for them, so runs hold them at their defaults
   * rather than multiplying the (unmeasured) combinations by them. The composition root passes
   * the registered engines' ones.
   */
  readonly ignores?: readonly string[]
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new KerneltuneError('CANCELLED', 'the measurement was cancelled'))
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(t)
      reject(new KerneltuneError('CANCELLED', 'the measurement was cancelled'))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })

export function kvBytesFor(activationDtype: string | undefined): number {
  return activationDtype?.startsWith('fp8') ? 1 : 2
}

export function analyticalBackend(options: AnalyticalBackendOptions = {}): MeasurementBackend {
  return {
    name: ANALYTICAL_BACKEND,
    kind: 'measurement-backend',
    apiVersion: 1,
    // Read by people before a run starts (the dashboard: "simulated: <description>").
    description: 'nothing is run; the numbers are a roofline prediction for the hardware preset.',
    simulated: true,
    // Only the KV element size has a term in the roofline; runs report the other dimensions as
    // not measured and leave them out of the winner.
    exercises: ['activation_dtype'],
    ...(options.ignores?.length ? { ignores: options.ignores } : {}),
    equivalentValues: { activation_dtype: [['fp16', 'bf16'], ['fp8_e4m3', 'fp8_e5m2']] },
    available: () => ({ ok: true }),
    async measure(request: MeasurementRequest): Promise<MeasurementResult> {
      const { model, hardware, workload, combo } = request
      if (!model || !hardware || !workload) {
        throw new KerneltuneError('INVALID_INPUT', 'the analytical backend needs the model, hardware and workload of the run')
      }
      const kvBytesPerElement = kvBytesFor(combo.activation_dtype)
      const bound = workload.phase === 'prefill'
        ? prefillBound(model, hardware, { batch: workload.batch, contextLength: workload.promptTokens, kvBytesPerElement })
        : decodeBound(model, hardware, { batch: workload.batch, contextLength: workload.contextLength ?? workload.promptTokens, kvBytesPerElement })
      const stepTokens = workload.phase === 'prefill' ? workload.batch * workload.promptTokens : workload.batch
      const latencyMs = (1000 * stepTokens) / bound.boundTps
      const reps: RepetitionMetrics[] = []
      for (let i = 0; i < request.repetitions; i++) {
        if (options.delayMs) await sleep(options.delayMs, request.signal)
        else if (request.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the measurement was cancelled')
        reps.push({ latencyMs, throughputTps: bound.boundTps, breakdown: { weightsMs: (1000 * bound.weightBytesPerStep) / (hardware.memBwGbs * 1e9), kvMs: (1000 * bound.kvBytesPerStep) / (hardware.memBwGbs * 1e9) } })
        request.onProgress?.(i + 1, request.repetitions)
      }
      return {
        backend: ANALYTICAL_BACKEND,
        simulated: true,
        device: `roofline of ${hardware.name} (simulated, nothing was run)`,
        repetitions: reps,
        notes: [
          `simulated: ${bound.binding}-bound ${bound.phase} roofline; ${bound.explanation}`,
          'only activation_dtype (KV element size) has a term in this model; the other dimensions predict identical numbers',
        ],
      }
    },
  }
}
