/**
 * The llama.cpp measurement backend: loads a GGUF through node-llama-cpp (prebuilt llama.cpp
 * binaries from npm: CPU here, CUDA or Vulkan where a GPU exists) and measures, per repetition,
 * prefill tokens/s, time to first token, decode tokens/s and peak memory. node-llama-cpp is
 * imported lazily, so importing this file costs nothing until a measurement starts.
 */
import { cpus } from 'node:os'
import {
  CONTRACT_VERSIONS,
  generationMetrics,
  KerneltuneError,
  runRepetitions,
  type MeasurementBackend,
  type MeasurementRequest,
  type MeasurementResult,
  type RepetitionMetrics,
} from '@kerneltune/core'
import { runtimeOptions } from '../runtime-options.ts'
import { NOT_RELEASED_NOTE, releaseWithin } from './release.ts'

type NodeLlamaCpp = typeof import('node-llama-cpp')
type Llama = Awaited<ReturnType<NodeLlamaCpp['getLlama']>>
type Token = import('node-llama-cpp').Token

export interface LlamacppBackendOptions {
  /** The GGUF to measure. */
  readonly modelPath: string
  /** An already loaded Llama instance (tests share one); otherwise one is loaded on first use. */
  readonly llama?: Llama
  /** `false` for the CPU build, `'auto'` to use CUDA or Vulkan when present. Default false. */
  readonly gpu?: false | 'auto' | 'cuda' | 'vulkan'
  /** Prompt length when the request has no workload. Default 128. */
  readonly promptTokens?: number
  /** Tokens generated per repetition when the request has no workload. Default 32. */
  readonly genTokens?: number
}

export const BACKEND_NAME = 'llamacpp'

const PROMPT_TEXT =
  'The quick brown fox jumps over the lazy dog while the kernel tuner measures how fast every token goes through the model. '

async function loadLlama(gpu: LlamacppBackendOptions['gpu']): Promise<Llama> {
  const { getLlama, LlamaLogLevel } = (await import('node-llama-cpp')) as NodeLlamaCpp
  // build 'never': use the prebuilt binaries from npm and never try to download or compile.
  // maxThreads 0: the context's `threads` is then the exact thread count, not a hint.
  return getLlama({ gpu: gpu ?? false, build: 'never', maxThreads: 0, logLevel: LlamaLogLevel.error, progressLogs: false })
}

/** The GPU devices llama.cpp can use; empty on the CPU build, or a GPU build that found none. */
async function gpuDevices(llama: Llama): Promise<string[]> {
  return llama.gpu === false ? [] : llama.getGpuDeviceNames()
}

function deviceName(llama: Llama, gpuNames: readonly string[]): string {
  const release = `llama.cpp ${llama.llamaCppRelease.release} (${llama.gpu || 'cpu'} ${llama.buildType} build, node-llama-cpp)`
  if (gpuNames.length === 0) {
    const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU'
    const why = llama.gpu === false ? '' : ` (the ${llama.gpu} build found no GPU device)`
    return `CPU: ${cpu}, ${cpus().length} logical cores${why}; ${release}`
  }
  return `${String(llama.gpu).toUpperCase()}: ${gpuNames.join(', ')}; ${release}`
}

/**
 * node-llama-cpp's message for a file that is not a GGUF quotes its first four bytes
 * (InvalidGgufMagicError: `Invalid GGUF magic. Expected "GGUF" but got "root".`, node-llama-cpp
 * 3.22.1 dist/gguf/errors/InvalidGgufMagicError.js:3); runs store and serve this message, so it
 * says what was expected and not what the file holds (issue 23 item 15).
 */
const loadError = (cause: unknown): string =>
  /^Invalid GGUF magic\b/.test((cause as Error)?.message ?? '') ? 'not a GGUF file (it does not start with the GGUF magic)' : (cause as Error)?.message ?? String(cause)

/** Memory now: the GPU's used VRAM when a GPU runs the model, else the process's resident set. */
async function memoryNow(llama: Llama, onGpu: boolean): Promise<number> {
  if (!onGpu) return process.memoryUsage.rss()
  return (await llama.getVramState()).used
}

export function llamacppBackend(options: LlamacppBackendOptions): MeasurementBackend {
  let llamaPromise: Promise<Llama> | undefined = options.llama ? Promise.resolve(options.llama) : undefined
  const llama = () => (llamaPromise ??= loadLlama(options.gpu))

  async function measure(request: MeasurementRequest): Promise<MeasurementResult> {
    const promptTokens = request.workload?.promptTokens ?? options.promptTokens ?? 128
    const genTokens = request.workload?.generatedTokens ?? options.genTokens ?? 32
    if (genTokens < 2) throw new KerneltuneError('INVALID_INPUT', 'generate at least 2 tokens: decode speed is measured between the first and the last')
    if (request.repetitions < 1) throw new KerneltuneError('INVALID_INPUT', 'repetitions must be at least 1')
    const lib = await llama()
    const gpuNames = await gpuDevices(lib)
    const onGpu = gpuNames.length > 0
    const opts = runtimeOptions(request.combo, onGpu, promptTokens + genTokens)
    const { TokenBias } = (await import('node-llama-cpp')) as NodeLlamaCpp
    const baseline = await memoryNow(lib, onGpu)
    const model = await lib.loadModel({ modelPath: options.modelPath, ...opts.model }).catch((cause: unknown) => {
      throw new KerneltuneError('MEASUREMENT_FAILED', `llama.cpp could not load ${options.modelPath}: ${loadError(cause)}`, { cause })
    })
    let contextFailed = false
    try {
      const contextSize = opts.context.contextSize ?? model.trainContextSize
      const context = await model
        // No retries at smaller sizes (node-llama-cpp's default remedy): a measurement must not
        // shrink its context unannounced.
        .createContext({ ...opts.context, contextSize, ignoreMemorySafetyChecks: true, failedCreationRemedy: false } as Parameters<typeof model.createContext>[0])
        .catch((cause: unknown) => {
          contextFailed = true
          throw new KerneltuneError('MEASUREMENT_FAILED', `llama.cpp could not create a context for ${JSON.stringify(request.combo)}: ${(cause as Error).message}`, { cause })
        })
      try {
        const sequence = context.getSequence()
        const prompt = promptOf(model, promptTokens)
        // End-of-generation tokens are banned so every repetition decodes the same number of tokens.
        const bias = new TokenBias(model.tokenizer)
        for (const t of [model.tokens.eos, model.tokens.eot].filter((t) => t !== null)) bias.set(t!, 'never')
        const one = async (): Promise<RepetitionMetrics> => {
          let peak = await memoryNow(lib, onGpu)
          await sequence.clearHistory()
          const p0 = performance.now()
          await sequence.evaluateWithoutGeneratingNewTokens(prompt)
          const prefillMs = performance.now() - p0
          peak = Math.max(peak, await memoryNow(lib, onGpu))
          await sequence.clearHistory()
          const t0 = performance.now()
          let first = 0
          let last = 0
          let n = 0
          for await (const _token of sequence.evaluate(prompt, { temperature: 0, tokenBias: bias })) {
            last = performance.now()
            if (n === 0) first = last
            if (++n >= genTokens) break
          }
          peak = Math.max(peak, await memoryNow(lib, onGpu))
          if (n < genTokens) throw new KerneltuneError('MEASUREMENT_FAILED', `generation stopped after ${n} of ${genTokens} tokens`)
          return generationMetrics({ promptTokens, prefillMs, startMs: t0, firstMs: first, lastMs: last, tokens: n, peakBytes: peak, baselineBytes: baseline })
        }
        const repetitions = await runRepetitions(request, () => one())
        return {
          backend: BACKEND_NAME,
          simulated: false,
          device: deviceName(lib, gpuNames),
          repetitions,
          notes: [
            ...opts.notes,
            `model ${options.modelPath}: ${model.fileInfo.metadata.general.architecture}, ${Math.round(model.size / 1e6)} MB, context ${context.contextSize} tokens, threads ${context.currentThreads}`,
            `${promptTokens} prompt tokens, ${genTokens} generated (greedy); prefill timed alone, TTFT and decode timed in a second pass from an empty cache`,
            `peakMemoryBytes: ${onGpu ? 'VRAM used' : 'resident set'} above the level before the model was loaded`,
            ...(!onGpu && context.currentThreads >= cpus().length
              ? [`threads ${context.currentThreads} >= ${cpus().length} logical cores: ggml's spinning thread pool then competes with the JavaScript thread and other processes, and decode speed can collapse; compare with fewer threads`]
              : []),
          ],
        }
      } finally {
        await context.dispose()
      }
    } catch (e) {
      // After a failed context node-llama-cpp may never release the model (see release.ts).
      if (contextFailed && !(await releaseWithin(() => model.dispose())) && e instanceof KerneltuneError) {
        throw new KerneltuneError(e.code, e.message + NOT_RELEASED_NOTE, { cause: e.cause, details: e.details })
      }
      throw e
    } finally {
      if (!contextFailed) await model.dispose()
    }
  }

  return {
    name: BACKEND_NAME,
    kind: 'measurement-backend',
    apiVersion: CONTRACT_VERSIONS['measurement-backend'],
    description: 'Measures llama.cpp prefill, decode, TTFT and memory for a GGUF through node-llama-cpp.',
    simulated: false,
    async available() {
      try {
        await llama()
        return { ok: true }
      } catch (e) {
        llamaPromise = undefined
        return { ok: false, reason: `node-llama-cpp could not load llama.cpp: ${(e as Error).message}` }
      }
    },
    measure,
  }
}

/** Exactly `n` prompt tokens: a fixed English text, tokenized, repeated and cut. */
function promptOf(model: { tokenize(text: string): readonly Token[] }, n: number): Token[] {
  const once = model.tokenize(PROMPT_TEXT)
  if (once.length === 0) throw new KerneltuneError('MEASUREMENT_FAILED', 'the model tokenized the prompt text to nothing')
  const out: Token[] = []
  while (out.length < n) out.push(...once)
  return out.slice(0, n)
}
