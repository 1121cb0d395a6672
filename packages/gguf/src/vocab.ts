/**
 * A byte-level vocabulary in llama.cpp's SentencePiece ("llama") format: `<unk>`, `<s>`, `</s>`,
 * then the 256 byte tokens `<0x00>`..`<0xFF>` (token type BYTE), which is enough to encode any
 * text because llama.cpp's SPM tokenizer falls back to byte tokens, and the SPM space piece
 * `\u2581` so that spaces survive a tokenize/detokenize round trip. Larger vocabularies are padded
 * with distinct filler tokens so the embedding and output matrices have a realistic size.
 */
import { gv, type GgufValue } from './metadata.ts'

/** llama.cpp `enum llama_token_type` values stored in tokenizer.ggml.token_type. */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, byte: 6 } as const

export const BYTE_VOCAB_MIN = 260

export interface ByteVocab {
  readonly tokens: string[]
  readonly scores: number[]
  readonly types: number[]
}

export function byteVocab(size = BYTE_VOCAB_MIN): ByteVocab {
  const tokens = ['<unk>', '<s>', '</s>']
  const types: number[] = [TOKEN_TYPE.unknown, TOKEN_TYPE.control, TOKEN_TYPE.control]
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)
    types.push(TOKEN_TYPE.byte)
  }
  tokens.push('\u2581')
  types.push(TOKEN_TYPE.normal)
  // Filler pieces are two-letter-plus words prefixed with the SPM space marker; they never clash
  // with the byte tokens and are harmless if the tokenizer happens to pick them.
  for (let i = tokens.length; i < size; i++) {
    tokens.push(`\u2581t${i.toString(36)}`)
    types.push(TOKEN_TYPE.normal)
  }
  const scores = tokens.map((_, i) => (i < BYTE_VOCAB_MIN ? 0 : -i))
  return { tokens, scores, types }
}

/** The tokenizer.* metadata for `byteVocab(size)`. */
export function byteVocabMetadata(size = BYTE_VOCAB_MIN): Record<string, GgufValue> {
  const v = byteVocab(size)
  return {
    'tokenizer.ggml.model': gv.str('llama'),
    'tokenizer.ggml.tokens': gv.arr('string', v.tokens),
    'tokenizer.ggml.scores': gv.arr('f32', v.scores),
    'tokenizer.ggml.token_type': gv.arr('i32', v.types),
    'tokenizer.ggml.unknown_token_id': gv.u32(0),
    'tokenizer.ggml.bos_token_id': gv.u32(1),
    'tokenizer.ggml.eos_token_id': gv.u32(2),
    'tokenizer.ggml.add_bos_token': gv.bool(true),
    'tokenizer.ggml.add_eos_token': gv.bool(false),
  }
}
