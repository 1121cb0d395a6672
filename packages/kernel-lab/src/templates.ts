/**
 * The template provider's transformations: WGSL variants of the GEMV kernel that lie outside the
 * tuned parameter space of @kerneltune/gpu-kernels (which varies workgroup size, rows per
 * workgroup, unrolling and vector width of one kernel shape). Each variant changes the shape of
 * the computation itself and says what it changed. They reuse the package's weight readers, so a
 * variant reads every weight format exactly as the tuned kernels do, and where a variant keeps the
 * tuned kernel's shape (threads per row, tree reduction) it is built by the same `gemvWgsl`.
 */
import { bindings, blockDotWgsl, gemvWgsl, weightReader, type DeviceLimits, type MatmulProblem } from '@kerneltune/gpu-kernels'

export interface TemplateVariant {
  /** Stable id, e.g. gemv.register-tile-4. */
  template: string
  description: string
  code: string
  entryPoint: string
  /** Workgroups to dispatch for the problem. */
  groups: [number, number, number]
  /** Outputs (n) and activation rows (m) per workgroup: the dispatch for any other m and n. */
  per: [number, number]
}

const xv = (o: string) => `vec4<f32>(x[${o}], x[${o} + 1u], x[${o} + 2u], x[${o} + 3u])`
// The same read from the activation row staged in workgroup memory.
const xsv = (o: string) => `vec4<f32>(xs[${o}], xs[${o} + 1u], xs[${o} + 2u], xs[${o} + 3u])`

// One thread per output: no workgroup memory, no barriers, no reduction. Wins when the reduction
// dominates (short rows) and loses parallelism when n is small.
function threadPerRow(problem: MatmulProblem): TemplateVariant {
  const WG = 64
  const code = `${bindings(problem.format, 'f32')}
${weightReader(problem.format)}
@compute @workgroup_size(${WG}, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let j = gid.x;
  let row = wid.y;
  if (j >= params.n) { return; }
  let wrow = j * params.nb;
  let xrow = row * params.k;
  var acc = 0.0;
  for (var b = 0u; b < params.nb; b++) {
${blockDotWgsl(xv, 'xrow + b * 32u', '    ')}
  }
  y[row * params.n + j] = acc;
}
`
  return { template: 'gemv.thread-per-row', description: 'tiling shape: one thread computes a whole output row serially (64 outputs per workgroup); no workgroup memory, barriers or tree reduction', code, entryPoint: 'main', groups: [Math.ceil(problem.n / WG), problem.m, 1], per: [WG, 1] }
}

// Register tiling over n: each thread loads an activation group once and applies it to R weight
// rows, so activation reads drop by R; the tree reduction then runs on R values per thread.
function registerTile(problem: MatmulProblem, R: number): TemplateVariant {
  const WG = 64
  const PER_ROW = 16
  const GROUPS = WG / PER_ROW
  const code = `${bindings(problem.format, 'f32')}
${weightReader(problem.format)}
const WG: u32 = ${WG}u;
const PER_ROW: u32 = ${PER_ROW}u;
const R: u32 = ${R}u;
var<workgroup> red: array<f32, ${WG * R}>;

@compute @workgroup_size(${WG}, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let t = lid % PER_ROW;
  let j0 = (wid.x * ${GROUPS}u + lid / PER_ROW) * R;
  let row = wid.y;
  let xrow = row * params.k;
  var acc: array<f32, ${R}>;
  for (var b = t; b < params.nb; b += PER_ROW) {
    let xb = xrow + b * 32u;
    for (var g = 0u; g < 4u; g++) {
      let x0 = ${xv('xb + off0(g)')};
      let x1 = ${xv('xb + off1(g)')};
      for (var r = 0u; r < R; r++) {
        let j = j0 + r;
        if (j < params.n) {
          let blk = j * params.nb + b;
          let w = wgroup(blk, g);
          acc[r] += (dot(x0, w[0]) + dot(x1, w[1])) * wscale(blk);
        }
      }
    }
  }
  for (var r = 0u; r < R; r++) { red[r * WG + lid] = acc[r]; }
  workgroupBarrier();
  for (var s = PER_ROW / 2u; s > 0u; s >>= 1u) {
    if (t < s) {
      for (var r = 0u; r < R; r++) { red[r * WG + lid] += red[r * WG + lid + s]; }
    }
    workgroupBarrier();
  }
  if (t == 0u) {
    for (var r = 0u; r < R; r++) {
      let j = j0 + r;
      if (j < params.n) { y[row * params.n + j] = red[r * WG + lid]; }
    }
  }
}
`
  return { template: `gemv.register-tile-${R}`, description: `register tiling over n: each thread applies every activation group it loads to ${R} weight rows (activation reads / ${R}), ${PER_ROW} threads per row group, ${GROUPS * R} outputs per workgroup`, code, entryPoint: 'main', groups: [Math.ceil(problem.n / (GROUPS * R)), problem.m, 1], per: [GROUPS * R, 1] }
}

// Shared-memory staging: the workgroup copies its activation row into workgroup memory once;
// every weight row of the workgroup then reads activations from there instead of the buffer.
function stagedActivations(problem: MatmulProblem): TemplateVariant {
  const WG = 64
  const PER_ROW = 8
  const ROWS = WG / PER_ROW
  const code = gemvWgsl({
    format: problem.format,
    xType: 'f32',
    workgroupSize: WG,
    rows: ROWS,
    declarations: `var<workgroup> xs: array<f32, ${problem.k}>;\n`,
    prologue: `  for (var i = lid; i < params.k; i += WG) { xs[i] = x[row * params.k + i]; }
  workgroupBarrier();
`,
    blocks: `    for (var b = t; b < params.nb; b += PER_ROW) {
${blockDotWgsl(xsv, 'b * 32u', '      ')}
    }`,
  })
  return { template: 'gemv.staged-activations', description: `shared-memory staging: the activation row (${problem.k} f32) is copied into workgroup memory once per workgroup and read from there by its ${ROWS} weight rows`, code, entryPoint: 'main', groups: [Math.ceil(problem.n / ROWS), problem.m, 1], per: [ROWS, 1] }
}

// GEMM, weight reuse over m: each thread owns one output column j and R activation rows; every
// weight group it dequantises is applied to R rows, so dequantisation work drops by R (the tuned
// GEMM kernel instead tiles through workgroup memory).
function weightReuse(problem: MatmulProblem, R: number): TemplateVariant {
  const WG = 64
  const code = `${bindings(problem.format, 'f32')}
${weightReader(problem.format)}
const R: u32 = ${R}u;
@compute @workgroup_size(${WG}, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let j = gid.x;
  let row0 = wid.y * R;
  if (j >= params.n) { return; }
  var acc: array<f32, ${R}>;
  for (var b = 0u; b < params.nb; b++) {
    let blk = j * params.nb + b;
    let sc = wscale(blk);
    for (var g = 0u; g < 4u; g++) {
      let w = wgroup(blk, g);
      for (var r = 0u; r < R; r++) {
        let row = row0 + r;
        if (row < params.m) {
          let xb = row * params.k + b * 32u;
          acc[r] += (dot(${xv('xb + off0(g)')}, w[0]) + dot(${xv('xb + off1(g)')}, w[1])) * sc;
        }
      }
    }
  }
  for (var r = 0u; r < R; r++) {
    let row = row0 + r;
    if (row < params.m) { y[row * params.n + j] = acc[r]; }
  }
}
`
  return { template: `gemm.weight-reuse-${R}`, description: `weight reuse over m without workgroup memory: one thread per output column and ${R} activation rows; each dequantised weight group is applied to ${R} rows`, code, entryPoint: 'main', groups: [Math.ceil(problem.n / WG), Math.ceil(problem.m / R), 1], per: [WG, R] }
}

/** Every GEMM template for the problem, in a fixed order. */
export function gemmTemplates(problem: MatmulProblem): TemplateVariant[] {
  const perOutput = { ...threadPerRow(problem), template: 'gemm.thread-per-output', description: 'tiling shape: one thread per output element, no workgroup memory or barriers (the tuned GEMM tiles through workgroup memory)' }
  return [perOutput, weightReuse(problem, 4), weightReuse(problem, 8)]
}

/** Every GEMV template that fits the problem and the device, in a fixed order. */
export function gemvTemplates(problem: MatmulProblem, limits?: Partial<Pick<DeviceLimits, 'maxComputeWorkgroupStorageSize'>>): TemplateVariant[] {
  const out = [threadPerRow(problem), registerTile(problem, 2), registerTile(problem, 4)]
  const shared = (problem.k + 64) * 4
  if (shared <= (limits?.maxComputeWorkgroupStorageSize ?? 16384)) out.push(stagedActivations(problem))
  return out
}
