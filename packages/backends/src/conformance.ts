/**
 * The conformance check of the measurement-backend contract, for the backends of this package and
 * for third-party ones (docs/writing-a-measurement-backend.md). It measures for real and returns
 * every problem it finds rather than stopping at the first, so that a test shows them all:
 * `expect((await checkMeasurementBackend(b, req)).problems).toEqual([])`.
 * It imports no test framework, so it runs on Node, Bun and Deno and in any test runner. It
 * registers the plugin (as the tuner does) but measures through the plugin itself: the registry's
 * wrapper turns every error into PLUGIN_ERROR, which would hide what the backend threw.
 */
import { createRegistry, isKerneltuneError, isModelFileBackend, type MeasurementBackend, type MeasurementRequest, type MeasurementResult } from '@kerneltune/core'

export interface ConformanceRequest extends Omit<MeasurementRequest, 'repetitions' | 'warmups' | 'signal' | 'onProgress'> {
  readonly warmups?: number
}

export interface ConformanceOptions {
  /** Repetition counts to request; each result must return exactly that many (default [2, 3]). */
  readonly repetitions?: readonly number[]
  /** For a model-file backend: the file its concrete backend is checked on. */
  readonly modelPath?: string
}

export interface ConformanceReport {
  /** What breaks the contract; empty when the backend conforms. */
  readonly problems: string[]
  /** Checks that could not run, and why (an unavailable device, no progress reports). */
  readonly notRun: string[]
  /** The device the backend reported, when it measured. */
  readonly device?: string
}

const cancelled = (e: unknown) => isKerneltuneError(e) && e.code === 'CANCELLED'
const describeError = (e: unknown) => (isKerneltuneError(e) ? `${e.code}: ${e.message}` : e instanceof Error ? `${e.name}: ${e.message}` : String(e))

/** Problems of one result for a request of `n` repetitions. */
export function resultProblems(backend: Pick<MeasurementBackend, 'name' | 'simulated'>, result: MeasurementResult, n: number): string[] {
  const out: string[] = []
  if (result.backend !== backend.name) out.push(`result.backend is ${JSON.stringify(result.backend)}, not the plugin's name ${JSON.stringify(backend.name)}`)
  if (result.simulated !== backend.simulated) {
    out.push(backend.simulated
      ? 'a simulated backend returned a result not labelled simulated: predictions must say so (simulated: true)'
      : 'a real backend returned a result labelled simulated: set the plugin\'s simulated flag, or measure')
  }
  if (typeof result.device !== 'string' || result.device.trim() === '') out.push('result.device is empty: say what was measured on (device, driver, build), or for a prediction what it models')
  if (!Array.isArray(result.repetitions) || result.repetitions.length !== n) {
    out.push(`asked for ${n} repetitions, got ${Array.isArray(result.repetitions) ? result.repetitions.length : 'none'}: return every repetition, not an aggregate`)
  } else {
    result.repetitions.forEach((r, i) => {
      if (!Number.isFinite(r.latencyMs) || r.latencyMs <= 0) out.push(`repetition ${i}: latencyMs ${r.latencyMs} is not a positive number`)
      for (const k of ['throughputTps', 'prefillTps', 'decodeTps', 'ttftMs', 'peakMemoryBytes'] as const) {
        const v = r[k]
        if (v !== undefined && (!Number.isFinite(v) || v < 0)) out.push(`repetition ${i}: ${k} ${v} is not a finite, non-negative number`)
      }
    })
  }
  if (result.notes !== undefined && (!Array.isArray(result.notes) || result.notes.some((n) => typeof n !== 'string'))) out.push('result.notes must be strings')
  return out
}

/**
 * Checks a backend against the contract: its shape and registration, availability, every
 * repetition returned for several counts, its results labelled (simulated or not) and its device
 * named (and device(), when given, naming the same one), proxy, exercises and ignores well-formed,
 * progress reports in range, errors raised as KerneltuneErrors, and abort honoured (an
 * aborted request is refused with CANCELLED, and a measurement aborted from its first progress
 * report stops with CANCELLED). When available() says no, the measuring checks are not run.
 */
export async function checkMeasurementBackend(plugin: MeasurementBackend, request: ConformanceRequest, options: ConformanceOptions = {}): Promise<ConformanceReport> {
  const problems: string[] = []
  const notRun: string[] = []
  try {
    createRegistry([plugin])
  } catch (e) {
    return { problems: [`the registry refuses the plugin: ${describeError(e)}`], notRun }
  }
  if (typeof plugin.simulated !== 'boolean') problems.push('simulated must be true or false')
  let backend: MeasurementBackend = plugin
  if (isModelFileBackend(plugin)) {
    if (!options.modelPath) return { problems: [...problems, 'a model-file backend is checked on a file: pass options.modelPath'], notRun }
    backend = plugin.modelFile.forModel(options.modelPath)
    if (backend.simulated !== plugin.simulated) problems.push('the concrete backend of a model file must have the plugin\'s simulated flag')
  }

  const availability = backend.available ? await backend.available() : { ok: true }
  if (typeof availability?.ok !== 'boolean') problems.push('available() must return { ok: boolean, reason? }')
  if (!availability.ok) {
    if (!availability.reason) problems.push('available() said no without a reason: say what is missing and how to get it')
    notRun.push(`measuring checks: the backend is not available here (${availability.reason ?? 'no reason given'})`)
    return { problems, notRun }
  }

  const base = { ...request, warmups: request.warmups ?? 0 }
  let device: string | undefined
  for (const n of options.repetitions ?? [2, 3]) {
    const progress: [number, number][] = []
    try {
      const result = await backend.measure({ ...base, repetitions: n, onProgress: (done, total) => void progress.push([done, total]) })
      problems.push(...resultProblems(backend, result, n).map((p) => `${n} repetitions: ${p}`))
      device ??= result.device
    } catch (e) {
      problems.push(`${n} repetitions: measure() failed: ${describeError(e)}`)
      continue
    }
    const bad = progress.find(([done, total], i) => done < 1 || done > total || (i > 0 && done < progress[i - 1]![0]))
    if (bad) problems.push(`${n} repetitions: progress (${bad[0]}, ${bad[1]}) is out of range or goes backwards`)
  }

  // The optional descriptions: device() keys the result cache, so it must name the measuring device.
  if (backend.device) {
    try {
      const named = await backend.device()
      if (typeof named !== 'string' || named.trim() === '') problems.push('device() returned no name')
      else if (device !== undefined && !device.includes(named)) problems.push(`device() says ${JSON.stringify(named)} but results say they were measured on ${JSON.stringify(device)}`)
    } catch (e) {
      problems.push(`device() failed: ${describeError(e)}`)
    }
  }
  if (plugin.proxy && (typeof plugin.proxy.engine !== 'boolean' || typeof plugin.proxy.device !== 'boolean')) problems.push('proxy must say { engine: boolean, device: boolean }')
  if (plugin.proxy && plugin.simulated) problems.push('a simulated backend is a prediction, not a proxy: leave proxy out')
  if (plugin.exercises && (!Array.isArray(plugin.exercises) || plugin.exercises.some((d) => typeof d !== 'string' || d === ''))) problems.push('exercises must list dimension ids')
  if (plugin.ignores && (!Array.isArray(plugin.ignores) || plugin.ignores.some((d) => typeof d !== 'string' || d === ''))) problems.push('ignores must list dimension ids')
  if (plugin.ignores?.some((d) => plugin.exercises?.includes(d))) problems.push('a dimension cannot be both exercised and ignored')

  // Abort before the start: nothing may be measured, and the refusal is CANCELLED.
  const pre = new AbortController()
  pre.abort('test')
  try {
    await backend.measure({ ...base, repetitions: 2, signal: pre.signal })
    problems.push('an already-aborted request was measured: check request.signal before starting')
  } catch (e) {
    if (!cancelled(e)) problems.push(`an aborted request failed with ${describeError(e)}, not CANCELLED`)
  }

  // Abort during a measurement, from its first progress report.
  const mid = new AbortController()
  let reported = false
  try {
    await backend.measure({ ...base, repetitions: 4, signal: mid.signal, onProgress: () => { reported = true; mid.abort('test') } })
    if (reported) problems.push('a measurement aborted from its first progress report ran to the end: check request.signal between repetitions')
    else notRun.push('abort during a measurement: the backend reports no progress (onProgress), so there was no moment to abort at')
  } catch (e) {
    if (!cancelled(e)) problems.push(`a measurement aborted midway failed with ${describeError(e)}, not CANCELLED`)
  }

  // A request the backend cannot serve is refused with a KerneltuneError, not a crash.
  try {
    const r = await backend.measure({ combo: request.combo, repetitions: 2, warmups: 0 })
    problems.push(...resultProblems(backend, r, 2).map((p) => `without model, hardware and workload: ${p}`))
  } catch (e) {
    if (!isKerneltuneError(e)) problems.push(`a request without model, hardware and workload crashed with ${describeError(e)}: throw a KerneltuneError (INVALID_INPUT) saying what is missing`)
  }
  return { problems, notRun, ...(device ? { device } : {}) }
}
