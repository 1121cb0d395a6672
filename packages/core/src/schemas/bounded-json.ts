import { z } from 'zod'

/**
 * Free-form JSON (a registry entry's metadata) with a bounded depth and size. An unbounded one
 * let a client send an object nested thousands of levels deep: it was stored, and then every
 * recursive step after the write (serialising the answer, reading the list back) could overflow
 * the stack, so the client got a 500 for a write that had landed. The walk here is iterative, so
 * checking a deep value cannot overflow either.
 */
export interface JsonBounds {
  /** Levels of objects/arrays, the value itself counting as 1. */
  readonly maxDepth: number
  /** UTF-8 bytes of the value's JSON. */
  readonly maxBytes: number
}

/** Depth of nested objects and arrays in a parsed JSON value (a scalar is 0, `{}` is 1). Stops counting past `limit`. */
export function jsonDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let max = 0
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [v, d] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    if (d > max) max = d
    if (max > limit) return max
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, d + 1])
  }
  return max
}

/**
 * Deepest nesting of `{`/`[` in JSON text, outside strings, without parsing it (so before
 * JSON.parse or anything recursive sees it). Stops counting past `limit`. Invalid JSON gives a
 * number too; the parser refuses it afterwards.
 */
export function jsonTextDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (inString) {
      if (ch === 0x5c) i++ // backslash: the next character is escaped
      else if (ch === 0x22) inString = false
    } else if (ch === 0x22) inString = true
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > max && (max = depth) > limit) return max
    } else if (ch === 0x7d || ch === 0x5d) depth--
  }
  return max
}

/** A JSON object of string keys within `bounds`; a deeper or larger one is an issue naming the bound. */
export function boundedJsonRecord(bounds: JsonBounds): z.ZodRecord<z.ZodString, z.ZodUnknown> {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const depth = jsonDepth(value, bounds.maxDepth)
    if (depth > bounds.maxDepth) {
      ctx.addIssue({ code: 'custom', message: `nested more than ${bounds.maxDepth} levels deep (objects and arrays); flatten it` })
      return
    }
    const bytes = new TextEncoder().encode(JSON.stringify(value)).byteLength
    if (bytes > bounds.maxBytes) ctx.addIssue({ code: 'custom', message: `is ${bytes} bytes of JSON, over the limit of ${bounds.maxBytes}; store large data elsewhere and reference it` })
  })
}
