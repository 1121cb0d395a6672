/**
 * Reading and checking the GGUF a command was given with --gguf, before anything loads it: the
 * header must parse and every tensor it lists must lie inside the file. A truncated file (an
 * interrupted download or copy) has a whole header, and without the second check llama.cpp
 * fails much later with only "Failed to load model".
 */
import { open } from 'node:fs/promises'
import { KerneltuneError } from '@kerneltune/core'
import { checkGgufTensorsInFile, readGgufHeader, type GgufHeader } from '@kerneltune/gguf'
import { usageError } from '../../cli/args.ts'

/** Reads just the GGUF header, growing the read until it fits. */
export async function readGgufFileHeader(path: string): Promise<GgufHeader> {
  const handle = await open(path, 'r')
  try {
    for (let size = 1 << 20; ; size *= 4) {
      const buf = new Uint8Array(size)
      const { bytesRead } = await handle.read(buf, 0, size, 0)
      try {
        return readGgufHeader(buf.subarray(0, bytesRead))
      } catch (e) {
        if (bytesRead < size || size >= 1 << 28 || !(e instanceof KerneltuneError) || e.code !== 'INVALID_FORMAT' || !/longer than/.test(e.message)) throw e
      }
    }
  } finally {
    await handle.close()
  }
}

/**
 * The header of `path` (`bytes` long), checked: a file that is not a GGUF, or one whose tensors
 * run past its end, is a usage error (exit 2) that names the file and the first missing tensor.
 */
export async function checkedGgufHeader(path: string, bytes: number): Promise<GgufHeader> {
  let header: GgufHeader
  try {
    header = await readGgufFileHeader(path)
  } catch (e) {
    if (e instanceof KerneltuneError && e.code === 'INVALID_FORMAT') {
      throw usageError(`--gguf ${path}: ${e.message}${/longer than/.test(e.message) ? ' (the file ends inside its header: it is truncated or not a GGUF)' : ''}`)
    }
    throw e
  }
  try {
    checkGgufTensorsInFile(header, bytes, path)
  } catch (e) {
    if (e instanceof KerneltuneError) throw usageError(`--gguf: ${e.message}`, e.details)
    throw e
  }
  return header
}
