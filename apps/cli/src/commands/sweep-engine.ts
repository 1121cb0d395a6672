/**
 * `kerneltune sweep --engine E --backend server` for an engine the sweep does not plan itself (it
 * plans GGUF and ONNX models): any engine whose plugin declares a serving capability is launched
 * by the generic server backend, which finds its program from that capability. Where the engine is not installed
 * the backend's ENGINE_NOT_INSTALLED (with the engine's install hint) is what the command says.
 */
import { loadEngine } from '@kerneltune/compose'
import { KerneltuneError, requireServing } from '@kerneltune/core'
import { requireServerBinary } from '@kerneltune/serving/node'
import { usageError } from '../cli/args.ts'

/** Checks the engine and its program; its sweep itself is not planned here yet (the error says where to measure it). */
export async function sweepServedEngine(name: string, backend: string | undefined, env: Readonly<Record<string, string | undefined>>): Promise<never> {
  if (backend !== 'server') throw usageError(`--engine ${name} is measured as its own server: add --backend server`)
  const engine = await loadEngine(name)
  const serving = requireServing(engine)
  const binary = requireServerBinary(engine.name, serving, env)
  // Installed: its sweep space is the catalog's, which `run create` plans; this command's own
  // planning (spaces, interleaved rounds) covers GGUF and ONNX models so far.
  throw new KerneltuneError('UNSUPPORTED', `${engine.displayName} is installed (${binary.path}), but kerneltune sweep plans only GGUF and ONNX model spaces so far; measure ${name} through the server backend with kerneltune run create (a request with "engine": "${name}", "backend": "server", "modelPath": "<model>")`, { plugin: name })
}
