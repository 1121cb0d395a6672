/**
 * The decode kernel: y[row][j] = Σ x[row][·] · W[j][·] for a few activation rows. Workgroup
 * (x: a group of `rowsPerWorkgroup` weight rows, y: the activation row). The threads of a weight
 * row stride over its blocks, `unroll` consecutive blocks per step, and finish with a tree
 * reduction in workgroup memory.
 */
import { bindings, blockDotWgsl, weightReader } from './wgsl-common.ts'
import type { GeneratedWgsl, MatmulConfig, WeightFormat } from './types.ts'

export interface GemvShape {
  format: WeightFormat
  /** Element type of the activation buffer `x`. */
  xType: 'f32' | 'vec4<f32>'
  /** Threads per workgroup. */
  workgroupSize: number
  /** Weight rows (outputs) per workgroup; each gets workgroupSize / rows threads. */
  rows: number
  /** Module-scope declarations after WG and PER_ROW (constants, workgroup arrays). */
  declarations?: string
  /** Statements run by every thread before its row's blocks (t, j, row and lid are in scope). */
  prologue?: string
  /** The loop over the row's blocks, adding into `acc` (`wrow` and the above are in scope). */
  blocks: string
}

/**
 * The GEMV kernel shape shared by the tuned kernel and kernel-lab's variants: PER_ROW threads per
 * weight row accumulate partial dot products, then a tree reduction in workgroup memory sums them.
 */
export function gemvWgsl(s: GemvShape): string {
  const perRow = s.workgroupSize / s.rows
  return `${bindings(s.format, s.xType)}
${weightReader(s.format)}
const WG: u32 = ${s.workgroupSize}u;
const PER_ROW: u32 = ${perRow}u;
${s.declarations ?? ''}var<workgroup> red: array<f32, ${s.workgroupSize}>;

@compute @workgroup_size(${s.workgroupSize}, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let t = lid % PER_ROW;
  let j = wid.x * ${s.rows}u + lid / PER_ROW;
  let row = wid.y;
${s.prologue ?? ''}  var acc = 0.0;
  if (j < params.n) {
    let wrow = j * params.nb;
${s.blocks}
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
}

export function generateGemv(format: WeightFormat, config: MatmulConfig): GeneratedWgsl {
  const wg = Number(config.workgroupSize)
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
  const code = gemvWgsl({
    format,
    xType: vec ? 'vec4<f32>' : 'f32',
    workgroupSize: wg,
    rows: Number(config.rowsPerWorkgroup),
    declarations: `const UNROLL: u32 = ${unroll}u;\n`,
    blocks: `    let xrow = row * params.k;
    for (var b0 = t * UNROLL; b0 < params.nb; b0 += PER_ROW * UNROLL) {
${steps.join('\n')}
    }`,
  })
  return { code, entryPoint: 'main', workgroupSize: [wg, 1, 1] }
}
