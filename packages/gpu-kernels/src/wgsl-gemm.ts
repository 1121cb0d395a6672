/**
 * The prefill kernel: a tileM×tileN output tile per workgroup, threadM×threadN outputs per
 * thread. Thread (tx, ty) owns rows ty + i·wgY and columns tx + j·wgX of the tile, so that
 * neighbouring threads write neighbouring outputs. The k loop walks 32-weight blocks; with
 * shared memory each block's activation slice and dequantised weight slice are staged in
 * workgroup memory (as vec4) and reused by every thread of the workgroup.
 */
import { bindings, weightReader } from './wgsl-common.ts'
import type { GeneratedWgsl, MatmulConfig, WeightFormat } from './types.ts'

export function generateGemm(format: WeightFormat, config: MatmulConfig): GeneratedWgsl {
  const tileM = Number(config.tileM)
  const tileN = Number(config.tileN)
  const tm = Number(config.threadM)
  const tn = Number(config.threadN)
  const wgX = tileN / tn
  const wgY = tileM / tm
  const shared = config.useSharedMemory === true
  const header = `${bindings(format, 'vec4<f32>')}
${weightReader(format)}
const TILE_M: u32 = ${tileM}u;
const TILE_N: u32 = ${tileN}u;
const WG_X: u32 = ${wgX}u;
const WG_Y: u32 = ${wgY}u;
`
  const store = `  for (var i = 0u; i < ${tm}u; i++) {
    let r = r0 + ty + i * WG_Y;
    for (var jj = 0u; jj < ${tn}u; jj++) {
      let c = c0 + tx + jj * WG_X;
      if (r < params.m && c < params.n) { y[r * params.n + c] = acc[i * ${tn}u + jj]; }
    }
  }`
  const entry = `@compute @workgroup_size(${wgX}, ${wgY}, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let tx = lid3.x;
  let ty = lid3.y;
  let r0 = wid.y * TILE_M;
  let c0 = wid.x * TILE_N;
  var acc: array<f32, ${tm * tn}>;`
  let code: string
  if (shared) {
    code = `${header}
var<workgroup> xs: array<vec4<f32>, ${tileM * 8}>;
var<workgroup> ws: array<vec4<f32>, ${tileN * 8}>;

${entry}
  for (var b = 0u; b < params.nb; b++) {
    // Stage x[r0.., b*32 ..+32] (8 vec4 per row) and the dequantised weights (4 groups per row).
    for (var e = lid; e < TILE_M * 8u; e += WG_X * WG_Y) {
      let r = r0 + e / 8u;
      var v = vec4<f32>(0.0);
      if (r < params.m) { v = x[(r * params.k + b * 32u) / 4u + e % 8u]; }
      xs[e] = v;
    }
    for (var e = lid; e < TILE_N * 4u; e += WG_X * WG_Y) {
      let c = c0 + e / 4u;
      let g = e % 4u;
      var w = mat2x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0));
      if (c < params.n) {
        let blk = c * params.nb + b;
        w = wgroup(blk, g) * wscale(blk);
      }
      ws[(e / 4u) * 8u + off0(g) / 4u] = w[0];
      ws[(e / 4u) * 8u + off1(g) / 4u] = w[1];
    }
    workgroupBarrier();
    for (var q = 0u; q < 8u; q++) {
      for (var i = 0u; i < ${tm}u; i++) {
        let xv = xs[(ty + i * WG_Y) * 8u + q];
        for (var jj = 0u; jj < ${tn}u; jj++) {
          acc[i * ${tn}u + jj] += dot(xv, ws[(tx + jj * WG_X) * 8u + q]);
        }
      }
    }
    workgroupBarrier();
  }
${store}
}
`
  } else {
    code = `${header}
${entry}
  for (var b = 0u; b < params.nb; b++) {
    for (var jj = 0u; jj < ${tn}u; jj++) {
      let c = c0 + tx + jj * WG_X;
      if (c >= params.n) { continue; }
      let blk = c * params.nb + b;
      let d = wscale(blk);
      for (var g = 0u; g < 4u; g++) {
        let w = wgroup(blk, g) * d;
        for (var i = 0u; i < ${tm}u; i++) {
          let r = r0 + ty + i * WG_Y;
          if (r >= params.m) { continue; }
          let xb = (r * params.k + b * 32u) / 4u;
          acc[i * ${tn}u + jj] += dot(x[xb + off0(g) / 4u], w[0]) + dot(x[xb + off1(g) / 4u], w[1]);
        }
      }
    }
  }
${store}
}
`
  }
  return { code, entryPoint: 'main', workgroupSize: [wgX, wgY, 1] }
}
