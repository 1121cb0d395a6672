/**
 * @module @kerneltune/gguf/node
 * Node file adapter: stream a GGUF to disk through a temporary file and rename it when complete.
 *
 * @example
 * ```ts
 * import { synthLlama } from '@kerneltune/gguf'
 * import { writeGgufFile } from '@kerneltune/gguf/node'
 * await writeGgufFile('tiny.gguf', synthLlama({ params: 2e6, vocabSize: 512 }).file)
 * ```
 */
export { writeGgufFile, type WriteFileOptions } from './adapters/write-file.node.ts'
