/**
 * How the serving commands get a server: a GGUF launched with llama-server (found through
 * @kerneltune/engines-llamacpp/node), an already running `--endpoint URL`, or a `--launch 'CMD {port}'`
 * template. Shared by `bench serve`, `sweep --backend server` and `run create --backend server`.
 */
import { resolve } from 'node:path'
import { LLAMACPP_VERSION, llamacppServerEngine } from '@kerneltune/engines-llamacpp'
import { requireLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { type ServerTarget } from '@kerneltune/serving/node'
import { usageError } from '../../cli/args.ts'
import type { Io } from '../../cli/command.ts'

export interface TargetFlags {
  readonly gguf?: string | undefined
  readonly endpoint?: string | undefined
  readonly launch?: string | undefined
}

export function serverTarget(io: Io, f: TargetFlags): ServerTarget {
  const given = [f.endpoint && '--endpoint', f.launch && '--launch'].filter(Boolean)
  if (given.length > 1) throw usageError('give one of --endpoint URL and --launch \'CMD {port}\', not both')
  if (f.endpoint) {
    if (!/^https?:\/\/[^/]+/.test(f.endpoint)) throw usageError(`--endpoint must be an http(s) URL such as http://127.0.0.1:8080, got ${f.endpoint}`)
    return { kind: 'endpoint', url: f.endpoint, serving: llamacppServerEngine().serving! }
  }
  if (f.launch) {
    if (!f.launch.includes('{port}')) throw usageError(`--launch needs a {port} placeholder where the server's port goes, e.g. --launch 'llama-server -m m.gguf --port {port}'; got: ${f.launch}`)
    return { kind: 'template', command: f.launch, engine: llamacppServerEngine(), ...(f.gguf ? { model: resolve(io.cwd, f.gguf) } : {}) }
  }
  if (!f.gguf) throw usageError('give the model with --gguf FILE (kerneltune launches llama-server), or a server with --endpoint URL or --launch \'CMD {port}\'')
  const binary = requireLlamaServer(LLAMACPP_VERSION).path
  // The engine's serving capability adds --metrics for the cross-check itself.
  return { kind: 'engine', engine: llamacppServerEngine({ binary }), binary, model: resolve(io.cwd, f.gguf) }
}
