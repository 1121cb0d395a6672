/**
 * The decode kernel: y[row][j] = Σ x[row][·] · W[j][·] for a few activation rows. Workgroup
 * (x: a group of `rowsPerWorkgroup` weight rows, y: the activation row). The threads of a weight
 * row stride over its blocks, `unroll` consecutive blocks per step, and finish with a tree
 * reduction in workgroup memory.
 */
import { bindings, blockDotWgsl, weightReader } from './wgsl-common.ts'
import type { GeneratedWgsl, MatmulConfig, WeightFormat } from './types.ts'

export function generateGemv(format: WeightFormat, config: MatmulConfig): GeneratedWgsl {
  const wg = Number(config.workgroupSize)
  const rows = Number(config.rowsPerWorkgroup)
  const perRow = wg / rows
  const unroll = Number(config.unroll)
  const vec = Number(config.vecWidth) === 4
  // vec4 reads one aligned vec4 (activation offsets are multiples of 4); scalar reads four f32.
  const xload = vec
    ? (o: string) => `x[(${o}) >> 2u]`
    : (o: string) => `vec4<f32>(x[${o}], x[${o} + 1u], x[${o} + 2u], x[${o} + 3u])`
  const steps: string[] = []
  for (let u = 0; u < unroll; u++) {
    steps.push(`      {
        let b = b0 + ${u}u;
${blockDotWgsl(xload, 'xrow + b * 32u', '        ')}
      }`)
  }
  const code = `${bindings(format, vec ? 'vec4<f32>' : 'f32')}
${weightReader(format)}
const WG: u32 = ${wg}u;
const PER_ROW: u32 = ${perRow}u;
const UNROLL: u32 = ${unroll}u;
var<workgroup> red: array<f32, ${wg}>;

@compute @workgroup_size(${wg}, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let t = lid % PER_ROW;
  let j = wid.x * ${rows}u + lid / PER_ROW;
  let row = wid.y;
  var acc = 0.0;
  if (j < params.n) {
    let wrow = j * params.nb;
    let xrow = row * params.k;
    for (var b0 = t * UNROLL; b0 < params.nb; b0 += PER_ROW * UNROLL) {
${steps.join('\n')}
    }
  }
  red[lid] = acc;
  workgroupBarrier();
  for (var s = PER_ROW / 2u; s > 0u; s >>= 1u) {
    if (t < s) { red[lid] += red[lid + s]; }
    workgroupBarrier();
  }
  if (t == 0u && j < params.n) { y[row * params.n + j] = red[lid]; }
}
`
  return { code, entryPoint: 'main', workgroupSize: [wg, 1, 1] }
}
