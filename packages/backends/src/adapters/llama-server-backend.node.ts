/**
 * The `server` backend of runs and tune sessions: each combination is launched as a real
 * llama-server (the run's GGUF, the combination's flags, --metrics) and measured under
 * OpenAI-compatible streaming load shaped by the run's workload (prompt and generated tokens;
 * batch = concurrent requests). A model-file backend, like node-llama-cpp's: one registered
 * plugin, a concrete backend per model path. The binary is looked up when a run first needs it,
 * so registering the backend on a machine without llama-server costs nothing.
 */
import { modelFileBackend, type MeasurementBackend, type ModelFileBackend } from '@kerneltune/core'
import { LLAMACPP_VERSION, llamacppServerEngine } from '@kerneltune/engines-llamacpp'
import { findLlamaServer, requireLlamaServer, BUILD_HINT } from '@kerneltune/serving/node'
import { serverBackend } from './server-backend.node.ts'

export const LLAMA_SERVER_BACKEND = 'server'

export interface LlamaServerRunBackendOptions {
  /** The llama-server binary; default found by findLlamaServer (env, build cache, PATH). */
  readonly binary?: string
  /** Measured requests per repetition at least. Default 8. */
  readonly requests?: number
}

export function llamaServerRunBackend(options: LlamaServerRunBackendOptions = {}): ModelFileBackend {
  const plugin = modelFileBackend({
    name: LLAMA_SERVER_BACKEND,
    description: "llama.cpp's llama-server launched per combination with the run's GGUF (modelPath) and measured under concurrent streaming load: output tokens/s, TTFT, TPOT, latency",
    simulated: false,
    fileKind: 'a GGUF file',
    create: (modelPath): MeasurementBackend => {
      let inner: MeasurementBackend | undefined
      const get = () => {
        if (!inner) {
          const binary = options.binary ?? requireLlamaServer(LLAMACPP_VERSION).path
          inner = serverBackend({
            name: LLAMA_SERVER_BACKEND,
            target: { kind: 'engine', engine: llamacppServerEngine({ binary }), binary, model: modelPath, extraArgs: ['--metrics'] },
            load: { workload: { kind: 'synthetic', promptTokens: 64, outputTokens: 32 }, requests: options.requests ?? 8 },
          })
        }
        return inner
      }
      return {
        name: LLAMA_SERVER_BACKEND,
        kind: 'measurement-backend',
        apiVersion: 1,
        simulated: false,
        available: () => (options.binary ?? findLlamaServer(LLAMACPP_VERSION) ? { ok: true } : { ok: false, reason: `no llama-server binary; ${BUILD_HINT}` }),
        measure: (request) => get().measure(request),
      }
    },
  })
  return plugin
}
