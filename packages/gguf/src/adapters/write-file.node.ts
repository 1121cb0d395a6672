/**
 * Writes a GGUF file to disk: streamed through a file handle into `<path>.partial-<pid>`, then
 * renamed, so an interrupted write never leaves a half-written model under the final name.
 */
import { open, rename, rm } from 'node:fs/promises'
import { KerneltuneError } from '@kerneltune/core'
import { ggufChunks, ggufLayout, type GgufFile, type GgufLayout } from '../writer.ts'

export interface WriteFileOptions {
  /** Called after each chunk with bytes written so far and the total. */
  readonly onProgress?: (written: number, total: number) => void
  readonly signal?: AbortSignal
}

/** Bytes are gathered into writes of about this size; tiny writes are slow. */
const FLUSH_BYTES = 8 << 20

export async function writeGgufFile(path: string, file: GgufFile, options: WriteFileOptions = {}): Promise<GgufLayout> {
  const layout = ggufLayout(file)
  const temp = `${path}.partial-${process.pid}`
  const handle = await open(temp, 'w').catch((cause: unknown) => {
    throw new KerneltuneError('IO', `cannot create ${temp}: ${(cause as Error).message}; check that the folder exists and is writable`, { cause })
  })
  let written = 0
  let pending: Uint8Array[] = []
  let pendingBytes = 0
  const flush = async () => {
    if (pendingBytes === 0) return
    const buf = new Uint8Array(pendingBytes)
    let at = 0
    for (const p of pending) {
      buf.set(p, at)
      at += p.length
    }
    await handle.write(buf)
    written += pendingBytes
    pending = []
    pendingBytes = 0
    options.onProgress?.(written, layout.totalBytes)
  }
  try {
    for await (const chunk of ggufChunks(file, layout)) {
      if (options.signal?.aborted) throw new KerneltuneError('CANCELLED', `writing ${path} was cancelled`)
      pending.push(chunk)
      pendingBytes += chunk.length
      if (pendingBytes >= FLUSH_BYTES) await flush()
    }
    await flush()
    await handle.close()
    await rename(temp, path)
  } catch (e) {
    await handle.close().catch(() => undefined)
    await rm(temp, { force: true })
    throw e
  }
  return layout
}
