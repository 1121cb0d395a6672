/** Writes a synthesized ONNX model to disk (the only file access of this package). */
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { SynthOnnxLlama } from '../llama-onnx.ts'

export async function writeOnnxFile(path: string, model: Pick<SynthOnnxLlama, 'bytes'>): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, model.bytes)
}
