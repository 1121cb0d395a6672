/**
 * The demo's model: a synthetic llama GGUF (random weights: meaningless text, real speed) in a
 * folder, reused when a file of the same size is already there. A small vocabulary keeps the
 * embedding from dominating a 15M model, as in real small llamas.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseParamCount, synthLlama, type SynthQuant } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'

const VOCAB = 2048
const SEED = 1

export interface DemoModel {
  readonly path: string
  readonly reused: boolean
  readonly params: number
  readonly shape: { readonly hidden: number; readonly layers: number; readonly heads: number; readonly ffn: number; readonly vocab: number }
  readonly bytes: number
  readonly quant: SynthQuant
}

/** Writes (or finds) the model; `onProgress` gets the bytes written and the total. */
export async function demoModel(o: { readonly dir: string; readonly params: string; readonly quant: SynthQuant; readonly onStart?: (path: string, reused: boolean) => void; readonly onProgress?: (written: number, total: number) => void }): Promise<DemoModel> {
  mkdirSync(o.dir, { recursive: true })
  const synth = synthLlama({ params: parseParamCount(o.params), quant: o.quant, seed: SEED, vocabSize: VOCAB })
  const path = join(o.dir, `llama-${o.params}-${o.quant.toLowerCase()}-v${VOCAB}-s${SEED}.gguf`)
  const total = synth.layout.totalBytes
  const reused = existsSync(path) && statSync(path).size === total
  o.onStart?.(path, reused)
  if (!reused) await writeGgufFile(path, synth.file, { onProgress: (w) => o.onProgress?.(w, total) })
  return { path, reused, params: synth.paramCount, shape: synth.shape, bytes: total, quant: o.quant }
}
