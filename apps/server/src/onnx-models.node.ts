/**
 * Synthesized ONNX decoders on Node, kept in the cache folder `kerneltune sweep --engine onnx`
 * uses ($KERNELTUNE_CACHE_DIR, else $XDG_CACHE_HOME/kerneltune, else ~/.cache/kerneltune; then
 * onnx/), under the CLI's file names: a shape synthesized by either is reused by the other.
 */
import { mkdir, rename, stat, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import process from 'node:process'
import { parseParamCount } from '@kerneltune/gguf'
import { onnxModelOf, type OnnxModelRequest, type OnnxModels } from './onnx-models.ts'

export function onnxCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  const root = env.KERNELTUNE_CACHE_DIR || join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'kerneltune')
  return join(root, 'onnx')
}

export function onnxModelCache(env: Readonly<Record<string, string | undefined>> = process.env): OnnxModels {
  const dir = onnxCacheDir(env)
  // Two requests for one shape at once synthesize it once.
  const pending = new Map<string, Promise<string>>()
  const make = async (r: OnnxModelRequest, path: string): Promise<string> => {
    if ((await stat(path).catch(() => undefined))?.isFile()) return path
    // Synchronous and CPU-bound: the request that asks for a new shape waits for it (seconds for
    // 1B at 4 bits), and so does the event loop; every later request finds the file.
    // Loaded on first use: the server starts without the protobuf encoder.
    const { synthOnnxLlama } = await import('@kerneltune/onnx')
    const m = synthOnnxLlama({ params: parseParamCount(r.params), weights: r.weights, vocabSize: r.vocabSize, seed: 1 })
    await mkdir(dir, { recursive: true })
    // Written beside and renamed: an interrupted write never leaves a file a later run takes for whole.
    const partial = `${path}.partial-${process.pid}-${Date.now()}`
    await writeFile(partial, m.bytes)
    await rename(partial, path)
    return path
  }
  return {
    path(r) {
      const path = join(dir, onnxModelOf(r).fileName)
      let p = pending.get(path)
      if (!p) {
        p = make(r, path).finally(() => pending.delete(path))
        pending.set(path, p)
      }
      return p
    },
  }
}
