/**
 * GGUF metadata values. Each value carries its GGUF type, because a JavaScript number does not
 * say whether llama.cpp expects a u32, an i32 or an f32 (and it checks: a wrong type is a load
 * error). Build values with the helpers: `gv.u32(2048)`, `gv.str('llama')`, `gv.arr('f32', xs)`.
 */
import { ByteWriter } from './bytes.ts'

/** GGUF value type ids (gguf.h `enum gguf_type`). */
export const GGUF_VALUE_TYPES = {
  u8: 0,
  i8: 1,
  u16: 2,
  i16: 3,
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
  u64: 10,
  i64: 11,
  f64: 12,
} as const

export type GgufScalarType = Exclude<keyof typeof GGUF_VALUE_TYPES, 'array'>

export type GgufValue =
  | { readonly type: Exclude<GgufScalarType, 'string' | 'bool'>; readonly value: number | bigint }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'array'; readonly itemType: GgufScalarType; readonly value: readonly (number | bigint | string | boolean)[] }

export const gv = {
  u8: (value: number): GgufValue => ({ type: 'u8', value }),
  i8: (value: number): GgufValue => ({ type: 'i8', value }),
  u16: (value: number): GgufValue => ({ type: 'u16', value }),
  i16: (value: number): GgufValue => ({ type: 'i16', value }),
  u32: (value: number): GgufValue => ({ type: 'u32', value }),
  i32: (value: number): GgufValue => ({ type: 'i32', value }),
  u64: (value: number | bigint): GgufValue => ({ type: 'u64', value }),
  i64: (value: number | bigint): GgufValue => ({ type: 'i64', value }),
  f32: (value: number): GgufValue => ({ type: 'f32', value }),
  f64: (value: number): GgufValue => ({ type: 'f64', value }),
  bool: (value: boolean): GgufValue => ({ type: 'bool', value }),
  str: (value: string): GgufValue => ({ type: 'string', value }),
  arr: (itemType: GgufScalarType, value: readonly (number | bigint | string | boolean)[]): GgufValue => ({ type: 'array', itemType, value }),
}

export function writeScalar(w: ByteWriter, type: GgufScalarType, v: number | bigint | string | boolean): void {
  switch (type) {
    case 'u8': return w.u8(Number(v))
    case 'i8': return w.i8(Number(v))
    case 'u16': return w.u16(Number(v))
    case 'i16': return w.i16(Number(v))
    case 'u32': return w.u32(Number(v))
    case 'i32': return w.i32(Number(v))
    case 'f32': return w.f32(Number(v))
    case 'f64': return w.f64(Number(v))
    case 'u64': return w.u64(v as number | bigint)
    case 'i64': return w.i64(v as number | bigint)
    case 'bool': return w.u8(v ? 1 : 0)
    case 'string': return w.str(String(v))
  }
}

/** Writes a value's type id and payload. */
export function writeValue(w: ByteWriter, value: GgufValue): void {
  w.u32(GGUF_VALUE_TYPES[value.type])
  if (value.type !== 'array') return writeScalar(w, value.type, value.value)
  w.u32(GGUF_VALUE_TYPES[value.itemType])
  w.u64(value.value.length)
  for (const item of value.value) writeScalar(w, value.itemType, item)
}
