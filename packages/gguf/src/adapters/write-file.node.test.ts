import { describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readGgufHeader } from '../reader.ts'
import { synthLlama } from '../synth-llama.ts'
import { ggufBytes, type GgufFile } from '../writer.ts'
import { writeGgufFile } from './write-file.node.ts'

describe('writeGgufFile', () => {
  it('should write the whole file under its final name and report progress', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gguf-'))
    try {
      const m = synthLlama({ params: 1e6, vocabSize: 300, quant: 'Q8_0' })
      const seen: number[] = []
      const path = join(dir, 'm.gguf')
      await writeGgufFile(path, m.file, { onProgress: (w) => seen.push(w) })
      const bytes = readFileSync(path)
      expect(bytes.length).toBe(m.layout.totalBytes)
      expect(seen.at(-1)).toBe(m.layout.totalBytes)
      expect(readGgufHeader(new Uint8Array(bytes)).metadata['general.architecture']).toBe('llama')
      expect(readdirSync(dir)).toEqual(['m.gguf'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('should write exactly the bytes of ggufBytes when there are more chunks than one writev takes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gguf-'))
    try {
      // 700 tensors of 3 floats: each yields its 12 bytes and 20 bytes of padding, 1400 chunks.
      const file: GgufFile = {
        metadata: {},
        tensors: Array.from({ length: 700 }, (_, i) => ({ name: `t${i}`, dims: [3], type: 'F32' as const, data: () => [new Uint8Array(12).fill(i % 251)] })),
      }
      await writeGgufFile(join(dir, 'many.gguf'), file)
      const bytes = new Uint8Array(readFileSync(join(dir, 'many.gguf')))
      const expected = await ggufBytes(file)
      expect(bytes.length).toBe(expected.length)
      expect(bytes.every((v, i) => v === expected[i])).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('should leave nothing behind when a tensor fails mid-way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gguf-'))
    try {
      const bad: GgufFile = { metadata: {}, tensors: [{ name: 't', dims: [64], type: 'F32', data: () => [new Uint8Array(10)] }] }
      await expect(writeGgufFile(join(dir, 'bad.gguf'), bad)).rejects.toThrow(/produced only 10 bytes/)
      expect(readdirSync(dir)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
