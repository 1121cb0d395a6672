/**
 * The ONNX Runtime measurement backend: loads an ONNX decoder (input_ids, attention_mask,
 * past_key_values.{i}.key/value in; logits and present.{i}.key/value out, the layout of
 * @kerneltune/onnx's synthetic models and of ONNX Runtime GenAI's exports) into an
 * onnxruntime-node InferenceSession on the CPU execution provider, with the session options the
 * engines-onnx CPU translation gives for the combination, and measures per repetition prefill
 * tokens/s, time to first token, decode tokens/s (greedy, token by token through the KV tensors)
 * and peak memory. onnxruntime-node is imported lazily, so importing this file costs nothing.
 */
import { readFile } from 'node:fs/promises'
import { cpus } from 'node:os'
import {
  CONTRACT_VERSIONS,
  generationMetrics,
  KerneltuneError,
  modelFileBackend,
  runRepetitions,
  type Combo,
  type MeasurementBackend,
  type MeasurementRequest,
  type MeasurementResult,
  type ModelFileBackend,
  type RepetitionMetrics,
  type Translation,
} from '@kerneltune/core'
import { setMatMulNBitsAccuracy } from '@kerneltune/onnx'
import { onnxCpuEngine } from '../cpu-engine.ts'
import { sessionOptionsOf, type CpuSessionOptions } from '../session-options.ts'
import { argmaxLast, compareLogits, decoderIo, type DecoderIo, type LogitsError, type Ort } from './decoder.node.ts'

export const ONNXRUNTIME_BACKEND = 'onnxruntime'

export interface OnnxruntimeBackendOptions {
  readonly modelPath: string
  /** Prompt length when the request has no workload. Default 64. */
  readonly promptTokens?: number
  /** Tokens generated per repetition when the request has no workload. Default 16. */
  readonly genTokens?: number
  /**
   * Compare the configured session's logits with an ORT_DISABLE_ALL session's on the same prompt
   * and one decode step, once per measurement after its repetitions (a second session: twice the
   * model in memory while it runs). Default true.
   */
  readonly qualityGate?: boolean
}

const loadOrt = async (): Promise<Ort> => (await import('onnxruntime-node')) as unknown as Ort

/** The onnxruntime-node release that is installed (`ort.env.versions.node`). */
export async function installedOrtVersion(): Promise<string> {
  return (await loadOrt()).env.versions.node ?? (await loadOrt()).env.versions.common
}

function deviceName(version: string): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU'
  return `CPU: ${cpu}, ${cpus().length} logical cores; ONNX Runtime ${version} (onnxruntime-node, CPU execution provider)`
}

const rss = () => process.memoryUsage.rss()

/** Translates the combination for the installed release, or refuses as the engine does. */
function translate(combo: Combo, version: string): Translation {
  const result = onnxCpuEngine(version).translate(combo)
  if (!result.ok) throw new KerneltuneError('UNSUPPORTED_COMBINATION', `ONNX Runtime ${result.version} refuses ${result.dimension}=${result.value}: ${result.reason}`)
  return result
}

export function onnxruntimeBackend(options: OnnxruntimeBackendOptions): MeasurementBackend {
  let ortPromise: Promise<Ort> | undefined
  const ort = () => (ortPromise ??= loadOrt())

  async function measure(request: MeasurementRequest): Promise<MeasurementResult> {
    if (request.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the measurement was cancelled')
    const promptTokens = request.workload?.promptTokens ?? options.promptTokens ?? 64
    const genTokens = request.workload?.generatedTokens ?? options.genTokens ?? 16
    if (genTokens < 2) throw new KerneltuneError('INVALID_INPUT', 'generate at least 2 tokens: decode speed is measured between the first and the last')
    if (!Number.isInteger(request.repetitions) || request.repetitions < 1) throw new KerneltuneError('INVALID_INPUT', 'repetitions must be at least 1')
    const lib = await ort()
    const version = lib.env.versions.node ?? lib.env.versions.common
    const translation = translate(request.combo, version)
    const applied = sessionOptionsOf(translation)
    const original = new Uint8Array(await readFile(options.modelPath).catch((cause: unknown) => {
      throw new KerneltuneError('MEASUREMENT_FAILED', `cannot read the ONNX model ${options.modelPath}: ${(cause as Error).message}`, { cause })
    }))
    const notes = [...translation.notes]
    let model: Uint8Array = original
    if (applied.matMulNBitsAccuracy !== undefined) {
      const edit = setMatMulNBitsAccuracy(original, applied.matMulNBitsAccuracy)
      model = edit.bytes
      notes.push(`accuracy_level=${applied.matMulNBitsAccuracy} set on the model's ${edit.nodes} MatMulNBits node${edit.nodes === 1 ? '' : 's'}`)
    }
    const baseline = rss()
    const session = await create(lib, model, applied.options)
    try {
      const io = decoderIo(session)
      const prompt = Array.from({ length: promptTokens }, (_, i) => (i * 7919 + 3) % io.vocab)
      const one = async (): Promise<RepetitionMetrics> => {
        let peak = rss()
        const p0 = performance.now()
        await session.run(io.prefill(lib, prompt))
        const prefillMs = performance.now() - p0
        peak = Math.max(peak, rss())
        const t0 = performance.now()
        let out = await session.run(io.prefill(lib, prompt))
        let token = argmaxLast(out[io.logits]!)
        const first = performance.now()
        let last = first
        let length = promptTokens
        for (let n = 1; n < genTokens; n++) {
          out = await session.run(io.decode(lib, token, ++length, out))
          token = argmaxLast(out[io.logits]!)
          last = performance.now()
        }
        peak = Math.max(peak, rss())
        return generationMetrics({ promptTokens, prefillMs, startMs: t0, firstMs: first, lastMs: last, tokens: genTokens, peakBytes: peak, baselineBytes: baseline })
      }
      const total = request.warmups + request.repetitions
      const repetitions = await runRepetitions(request, (i) => one().catch(failed(`repetition ${i + 1} of ${total}`)))
      // After the repetitions, so the reference session's memory is not in their peaks.
      const quality = options.qualityGate === false ? undefined : await qualityGate(lib, original, session, io, prompt).catch(failed('the quality gate'))
      const threads = applied.options.intraOpNumThreads
      return {
        backend: ONNXRUNTIME_BACKEND,
        simulated: false,
        device: deviceName(version),
        repetitions,
        notes: [
          ...notes,
          `model ${options.modelPath}: ${io.layers} layers, ${io.kvHeads} KV heads of ${io.headDim}, vocabulary ${io.vocab}, ${Math.round(original.length / 1e6)} MB; session options ${JSON.stringify(applied.options)}`,
          `${promptTokens} prompt tokens, ${genTokens} generated (greedy, one session.run per token, the present tensors fed back as the past); prefill timed alone, TTFT and decode timed in a second pass from an empty cache`,
          'peakMemoryBytes: resident set above the level before the session was created',
          ...(quality ? [qualityNote(quality)] : []),
          ...(threads !== undefined && threads >= cpus().length ? [`intraOpNumThreads ${threads} >= ${cpus().length} logical cores: spinning pool threads then compete with the JavaScript thread and other processes`] : []),
        ],
      }
    } finally {
      await session.release()
    }
  }

  return {
    name: ONNXRUNTIME_BACKEND,
    kind: 'measurement-backend',
    apiVersion: CONTRACT_VERSIONS['measurement-backend'],
    description: 'Measures ONNX Runtime prefill, decode, TTFT and memory of an ONNX decoder through onnxruntime-node on the CPU execution provider.',
    simulated: false,
    async available() {
      try {
        await ort()
        return { ok: true }
      } catch (e) {
        ortPromise = undefined
        return { ok: false, reason: `onnxruntime-node could not be loaded: ${(e as Error).message}` }
      }
    },
    measure,
  }
}

/** ORT's own errors (a shape it rejects, a kernel that fails) become MEASUREMENT_FAILED saying where. */
const failed = (where: string) => (cause: unknown): never => {
  if (cause instanceof KerneltuneError) throw cause
  throw new KerneltuneError('MEASUREMENT_FAILED', `ONNX Runtime failed in ${where}: ${(cause as Error)?.message ?? String(cause)}`, { cause })
}

async function create(lib: Ort, model: Uint8Array, options: CpuSessionOptions) {
  return lib.InferenceSession.create(model, options).catch((cause: unknown) => {
    throw new KerneltuneError('MEASUREMENT_FAILED', `ONNX Runtime could not create a session with ${JSON.stringify(options)}: ${(cause as Error).message}`, { cause })
  })
}

/**
 * The quality gate: the configured session against an ORT_DISABLE_ALL session of the unedited
 * model, on the prompt's logits and one decode step's: what graph optimisation and the accuracy
 * level change in the numbers.
 */
async function qualityGate(lib: Ort, original: Uint8Array, session: Awaited<ReturnType<typeof create>>, io: DecoderIo, prompt: number[]): Promise<LogitsError> {
  const reference = await create(lib, original, { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' })
  try {
    return await compareLogits(lib, session, reference, io, prompt)
  } finally {
    await reference.release()
  }
}

const qualityNote = (q: LogitsError) =>
  `quality gate: logits against an ORT_DISABLE_ALL session of the unedited model on the prompt and one decode step: max abs error ${q.maxAbs.toExponential(2)}, relative ${q.maxRel.toExponential(2)} (of the largest reference logit ${q.scale.toExponential(2)}); greedy tokens ${q.sameToken ? 'agree' : 'differ'}`

/** The backend for runs: one registered plugin that measures whichever ONNX file a run names. */
export function onnxruntimeRunBackend(options: Omit<OnnxruntimeBackendOptions, 'modelPath'> = {}): ModelFileBackend {
  return modelFileBackend({
    name: ONNXRUNTIME_BACKEND,
    description: 'ONNX Runtime (onnxruntime-node, CPU execution provider) measuring prefill, decode, TTFT and memory of the run\'s ONNX decoder (modelPath)',
    simulated: false,
    fileKind: 'an ONNX decoder model',
    engine: 'onnx',
    create: (modelPath) => onnxruntimeBackend({ ...options, modelPath }),
  })
}
