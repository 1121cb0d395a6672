/**
 * Writes a GGUF file to disk: streamed through a file handle into `<path>.partial-<pid>`, then
 * renamed, so an interrupted write never leaves a half-written model under the final name.
 */
import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import { KerneltuneError } from '@kerneltune/core'
import { ggufChunks, ggufLayout, type GgufFile, type GgufLayout } from '../writer.ts'

export interface WriteFileOptions {
  /** Called after each chunk with bytes written so far and the total. */
  readonly onProgress?: (written: number, total: number) => void
  readonly signal?: AbortSignal
}

/**
 * Chunks are gathered into one writev of about this size: tiny writes are slow, and writev hands
 * the chunks to the kernel without first copying them into one buffer (a tiled model repeats the
 * same chunk, so at disk speed a copy would be a noticeable share of the time).
 */
const FLUSH_BYTES = 16 << 20

/** Chunks per writev at most: well under IOV_MAX (1024), past which the kernel writes short. */
const FLUSH_CHUNKS = 256

/** writev, then plain writes for whatever a short write left (the promise API does not loop). */
async function writeAll(handle: FileHandle, chunks: Uint8Array[]): Promise<void> {
  let done = (await handle.writev(chunks)).bytesWritten
  for (const c of chunks) {
    if (done >= c.length) {
      done -= c.length
      continue
    }
    let at = done
    done = 0
    while (at < c.length) at += (await handle.write(c, at, c.length - at)).bytesWritten
  }
}

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
    await writeAll(handle, pending)
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
      if (pendingBytes >= FLUSH_BYTES || pending.length >= FLUSH_CHUNKS) await flush()
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
