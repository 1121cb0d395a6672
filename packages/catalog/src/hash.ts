/**
 * Stable hashing: canonical JSON (object keys sorted at every level) and 64-bit FNV-1a, written
 * with 16-bit limbs so it is synchronous, allocation-light and identical on every runtime.
 */

/** JSON with object keys sorted recursively; `undefined` members are dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && typeof v !== 'function')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
}

const encoder = new TextEncoder()

/** 64-bit FNV-1a of the UTF-8 bytes of `text`, as 16 lower-case hex digits. */
export function fnv1a64(text: string): string {
  const bytes = encoder.encode(text)
  // Offset basis 0xcbf29ce484222325 in four 16-bit limbs, least significant first.
  let h0 = 0x2325
  let h1 = 0x8422
  let h2 = 0x9ce4
  let h3 = 0xcbf2
  for (let i = 0; i < bytes.length; i++) {
    h0 ^= bytes[i]!
    // Multiply by the FNV prime 0x100000001b3 = 2^40 + 0x1b3, keeping 64 bits.
    const t0 = h0 * 0x1b3
    let t1 = h1 * 0x1b3
    let t2 = h2 * 0x1b3 + h0 * 0x100
    let t3 = h3 * 0x1b3 + h1 * 0x100
    t1 += t0 >>> 16
    t2 += t1 >>> 16
    t3 += t2 >>> 16
    h0 = t0 & 0xffff
    h1 = t1 & 0xffff
    h2 = t2 & 0xffff
    h3 = t3 & 0xffff
  }
  const hex = (n: number) => n.toString(16).padStart(4, '0')
  return hex(h3) + hex(h2) + hex(h1) + hex(h0)
}

/** The stable hash of a combination: FNV-1a 64 of its canonical JSON. Key order does not matter. */
export function comboHash(combo: Readonly<Record<string, string>>): string {
  return fnv1a64(canonicalJson(combo))
}
