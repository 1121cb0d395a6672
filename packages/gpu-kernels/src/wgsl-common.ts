/**
 * WGSL shared by the kernels: bindings and the per-format weight readers.
 *
 * Every format is read as 4 groups of 8 weights per 32-weight block. `wgroup(blk, g)` returns the
 * group's weights as two vec4 columns (unscaled integers for q4_0/q8_0), and `off0(g)`/`off1(g)`
 * the in-block positions of the activations they multiply; `wscale(blk)` is the block scale.
 * This keeps the kernels format-agnostic and lets them apply the scale once per block.
 *
 * q2_0/q3_0 low planes: weight i's 2 bits sit in byte i % 8 at bit 2·⌊i/8⌋, so u32 word w of the
 * plane holds weights 4w..4w+3 (+8p for bit pair p). Group g reads word g >> 1 and bit pairs
 * 2(g & 1) and 2(g & 1) + 1, i.e. weights off0(g) = 4(g >> 1) + 16(g & 1) and off1(g) = off0 + 8.
 * q3_0's high bits are one word per block (bit i = weight i), so no quant straddles two words.
 */
import type { WeightFormat } from './types.ts'

export function bindings(format: WeightFormat, activations: 'f32' | 'vec4<f32>'): string {
  const scales = format === 'f16' ? '' : '@group(0) @binding(2) var<storage, read> scales: array<u32>;\n'
  return `struct Params { m: u32, n: u32, k: u32, nb: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> quants: array<u32>;
${scales}@group(0) @binding(3) var<storage, read> x: array<${activations}>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
`
}

const SCALE_READER = 'fn wscale(blk: u32) -> f32 { return unpack2x16float(scales[blk >> 1u])[blk & 1u]; }\n'

/** Low-bit group reader; `words` quant words per block (2: q2_0, 3: q3_0 with its high-bit word). */
function lowBitReader(words: 2 | 3): string {
  const high = words === 3
  const plane = (sh: string, o: string) => high
    ? `(((vec4<u32>(w) >> ${sh}) & vec4<u32>(3u)) | (((vec4<u32>(h) >> (vec4<u32>(${o}) + vec4<u32>(0u, 1u, 2u, 3u))) & vec4<u32>(1u)) << vec4<u32>(2u)))`
    : `((vec4<u32>(w) >> ${sh}) & vec4<u32>(3u))`
  const zero = high ? '4.0' : '2.0'
  return `fn off0(g: u32) -> u32 { return 4u * (g >> 1u) + 16u * (g & 1u); }
fn off1(g: u32) -> u32 { return off0(g) + 8u; }
fn wgroup(blk: u32, g: u32) -> mat2x4<f32> {
  let w = quants[blk * ${words}u + (g >> 1u)];
${high ? `  let h = quants[blk * 3u + 2u];
` : ''}  let o = off0(g);
  let sh = vec4<u32>(0u, 8u, 16u, 24u) + vec4<u32>(4u * (g & 1u));
  let lo = vec4<f32>(${plane('sh', 'o')}) - vec4<f32>(${zero});
  let hi = vec4<f32>(${plane('(sh + vec4<u32>(2u))', 'o + 8u')}) - vec4<f32>(${zero});
  return mat2x4<f32>(lo, hi);
}
${SCALE_READER}`
}

export function weightReader(format: WeightFormat): string {
  if (format === 'q2_0') return lowBitReader(2)
  if (format === 'q3_0') return lowBitReader(3)
  if (format === 'q4_0') {
    // byte j of the block: weight j in the low nibble, weight j+16 in the high nibble.
    return `fn wgroup(blk: u32, g: u32) -> mat2x4<f32> {
  let w = quants[blk * 4u + g];
  let lo = vec4<f32>(vec4<u32>(w, w >> 8u, w >> 16u, w >> 24u) & vec4<u32>(15u)) - vec4<f32>(8.0);
  let hi = vec4<f32>(vec4<u32>(w >> 4u, w >> 12u, w >> 20u, w >> 28u) & vec4<u32>(15u)) - vec4<f32>(8.0);
  return mat2x4<f32>(lo, hi);
}
fn off0(g: u32) -> u32 { return 4u * g; }
fn off1(g: u32) -> u32 { return 16u + 4u * g; }
fn wscale(blk: u32) -> f32 { return unpack2x16float(scales[blk >> 1u])[blk & 1u]; }
`
  }
  if (format === 'q8_0') {
    return `fn sbytes(w: u32) -> vec4<f32> {
  return vec4<f32>(vec4<i32>(bitcast<i32>(w << 24u), bitcast<i32>(w << 16u), bitcast<i32>(w << 8u), bitcast<i32>(w)) >> vec4<u32>(24u));
}
fn wgroup(blk: u32, g: u32) -> mat2x4<f32> {
  let i = blk * 8u + 2u * g;
  return mat2x4<f32>(sbytes(quants[i]), sbytes(quants[i + 1u]));
}
fn off0(g: u32) -> u32 { return 8u * g; }
fn off1(g: u32) -> u32 { return 8u * g + 4u; }
fn wscale(blk: u32) -> f32 { return unpack2x16float(scales[blk >> 1u])[blk & 1u]; }
`
  }
  // f16 weights are read with unpack2x16float, which needs no shader-f16 feature.
  return `fn wgroup(blk: u32, g: u32) -> mat2x4<f32> {
  let i = blk * 16u + 4u * g;
  let a = vec4<f32>(unpack2x16float(quants[i]), unpack2x16float(quants[i + 1u]));
  let b = vec4<f32>(unpack2x16float(quants[i + 2u]), unpack2x16float(quants[i + 3u]));
  return mat2x4<f32>(a, b);
}
fn off0(g: u32) -> u32 { return 8u * g; }
fn off1(g: u32) -> u32 { return 8u * g + 4u; }
fn wscale(blk: u32) -> f32 { return 1.0; }
`
}

/**
 * WGSL statements that add one 32-weight block's dot product to `acc`: block `wrow + b` of the
 * weights against the activations starting at `xb` (a WGSL expression), read as vec4s by `xload`.
 * The tuned GEMV and kernel-lab's template variants share it, so they reduce a block alike.
 */
export function blockDotWgsl(xload: (offset: string) => string, xb: string, indent = ''): string {
  return [
    'let blk = wrow + b;',
    `let xb = ${xb};`,
    'var s = 0.0;',
    'for (var g = 0u; g < 4u; g++) {',
    '  let w = wgroup(blk, g);',
    `  s += dot(${xload('xb + off0(g)')}, w[0]) + dot(${xload('xb + off1(g)')}, w[1]);`,
    '}',
    'acc += s * wscale(blk);',
  ].map((l) => indent + l).join('\n')
}
