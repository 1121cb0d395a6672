/** A growable little-endian byte buffer, used to build GGUF headers. */
export class ByteWriter {
  private buf = new Uint8Array(1024)
  private view = new DataView(this.buf.buffer)
  private len = 0
  private static readonly text = new TextEncoder()

  get length(): number {
    return this.len
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.len + n) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.len))
    this.buf = next
    this.view = new DataView(next.buffer)
  }

  u8(v: number): void {
    this.reserve(1)
    this.view.setUint8(this.len, v)
    this.len += 1
  }
  i8(v: number): void {
    this.reserve(1)
    this.view.setInt8(this.len, v)
    this.len += 1
  }
  u16(v: number): void {
    this.reserve(2)
    this.view.setUint16(this.len, v, true)
    this.len += 2
  }
  i16(v: number): void {
    this.reserve(2)
    this.view.setInt16(this.len, v, true)
    this.len += 2
  }
  u32(v: number): void {
    this.reserve(4)
    this.view.setUint32(this.len, v, true)
    this.len += 4
  }
  i32(v: number): void {
    this.reserve(4)
    this.view.setInt32(this.len, v, true)
    this.len += 4
  }
  f32(v: number): void {
    this.reserve(4)
    this.view.setFloat32(this.len, v, true)
    this.len += 4
  }
  f64(v: number): void {
    this.reserve(8)
    this.view.setFloat64(this.len, v, true)
    this.len += 8
  }
  u64(v: number | bigint): void {
    this.reserve(8)
    this.view.setBigUint64(this.len, BigInt(v), true)
    this.len += 8
  }
  i64(v: number | bigint): void {
    this.reserve(8)
    this.view.setBigInt64(this.len, BigInt(v), true)
    this.len += 8
  }
  /** A GGUF string: u64 byte length, then UTF-8 bytes (no terminator). */
  str(s: string): void {
    const bytes = ByteWriter.text.encode(s)
    this.u64(bytes.length)
    this.bytes(bytes)
  }
  bytes(b: Uint8Array): void {
    this.reserve(b.length)
    this.buf.set(b, this.len)
    this.len += b.length
  }
  zeros(n: number): void {
    this.reserve(n)
    this.buf.fill(0, this.len, this.len + n)
    this.len += n
  }
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.len)
  }
}
