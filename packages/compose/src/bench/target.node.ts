/**
 * How the serving commands get a server, for any engine with a serving capability: a model file
 * launched with the engine's server (found through its capability: the variable, the engine's own
 * lookup, PATH), an already running `--endpoint URL`, or a `--launch 'CMD {port}'` template.
 * Shared by `bench serve`, `bench capacity`, `sweep --backend server` and the demo's serving step.
 */
import { resolve } from 'node:path'
import { KerneltuneError, requireServing } from '@kerneltune/core'
import { requireServerBinary, type ServerTarget } from '@kerneltune/serving/node'
import { servingEngine } from '../compose.node.ts'

export interface TargetFlags {
  readonly gguf?: string | undefined
  readonly endpoint?: string | undefined
  readonly launch?: string | undefined
}

const invalid = (message: string) => new KerneltuneError('INVALID_INPUT', message)

/** The server the flags name; `engine` is the engine's registry name. Errors are INVALID_INPUT (the CLI's exit 2). */
export function benchTarget(cwd: string, f: TargetFlags, engineName: string): ServerTarget {
  if (f.endpoint && f.launch) throw invalid('give one of --endpoint URL and --launch \'CMD {port}\', not both')
  const engine = servingEngine(engineName)
  const serving = requireServing(engine)
  if (f.endpoint) {
    if (!/^https?:\/\/[^/]+/.test(f.endpoint)) throw invalid(`--endpoint must be an http(s) URL such as http://127.0.0.1:8080, got ${f.endpoint}`)
    return { kind: 'endpoint', url: f.endpoint, serving }
  }
  if (f.launch) {
    if (!f.launch.includes('{port}')) throw invalid(`--launch needs a {port} placeholder where the server's port goes, e.g. --launch '${serving.binary.program} -m m.gguf --port {port}'; got: ${f.launch}`)
    return { kind: 'template', command: f.launch, engine, ...(f.gguf ? { model: resolve(cwd, f.gguf) } : {}) }
  }
  if (!f.gguf) throw invalid(`give the model with --gguf FILE (kerneltune launches ${serving.binary.program}), or a server with --endpoint URL or --launch 'CMD {port}'`)
  // The serving capability adds what the cross-check needs (a metrics switch) itself.
  return { kind: 'engine', engine, binary: requireServerBinary(engine.name, serving).path, model: resolve(cwd, f.gguf) }
}
