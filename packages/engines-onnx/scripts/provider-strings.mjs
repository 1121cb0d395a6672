#!/usr/bin/env node
// Re-derives the per-release facts of src/releases.ts from the shipped binaries: fetches the npm
// packages that carry ONNX Runtime's Linux x64 CUDA and TensorRT provider libraries, and reports
// which provider option names and attention variables each release's library holds.
// Usage: node packages/engines-onnx/scripts/provider-strings.mjs  (needs npm and tar; ~370 MB download)
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Package version → the ONNX Runtime release it carries (each package's README says which).
const PACKAGES = { '0.2.1': '1.19.2', '0.4.9': '1.29.0' }
const NAME = 'com.github.asus4.onnxruntime.linux-x64-gpu'
const NAMES = {
  cuda: [
    'enable_cuda_graph', 'sdpa_kernel', 'ORT_DISABLE_FLASH_ATTENTION', 'ORT_DISABLE_MEMORY_EFFICIENT_ATTENTION', 'ORT_DISABLE_TRT_FLASH_ATTENTION',
    'ORT_DISABLE_FUSED_ATTENTION', 'ORT_DISABLE_FUSED_CROSS_ATTENTION', 'ORT_DISABLE_DECODER_ATTENTION', 'ORT_ENABLE_FUSED_CAUSAL_ATTENTION',
    'ORT_ENABLE_CUDNN_FLASH_ATTENTION', 'ORT_ENABLE_LEAN_ATTENTION',
    // AttentionKernelOptions::Print's labels, one per sdpa_kernel bit this release's enum has
    // (attention_kernel_options.cc), and its warning that the unfused MATH path stays on.
    ' FLASH_ATTENTION=', ' EFFICIENT_ATTENTION=', ' TRT_FUSED_ATTENTION=', ' CUDNN_FLASH_ATTENTION=', ' TRT_FLASH_ATTENTION=',
    ' TRT_CROSS_ATTENTION=', ' TRT_CAUSAL_ATTENTION=', ' LEAN_ATTENTION=', ' DECODER_ATTENTION=',
    'Warning: Unfused kernel cannot be disabled right now. MATH=0 is ignored.',
  ],
  tensorrt: ['trt_fp16_enable', 'trt_bf16_enable', 'trt_cuda_graph_enable', 'trt_op_types_to_exclude'],
}
const LIB = { cuda: 'libonnxruntime_providers_cuda.so', tensorrt: 'libonnxruntime_providers_tensorrt.so' }

// A name counts when it appears NUL-terminated, as a C string constant does.
const holds = (bytes, name) => bytes.includes(Buffer.from(`${name}\0`))

const dir = mkdtempSync(join(tmpdir(), 'ort-providers-'))
try {
  for (const [pkg, ort] of Object.entries(PACKAGES)) {
    const tgz = execFileSync('npm', ['pack', `${NAME}@${pkg}`, '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop()
    const out = join(dir, pkg)
    execFileSync('mkdir', ['-p', out])
    execFileSync('tar', ['xzf', join(dir, tgz), '-C', out])
    for (const [ep, lib] of Object.entries(LIB)) {
      const bytes = readFileSync(join(out, 'package/Plugins/Linux/x64', lib))
      const found = NAMES[ep].map((n) => JSON.stringify(`${holds(bytes, n) ? '+' : '-'}${n}`))
      console.log(`ONNX Runtime ${ort} ${ep}: ${found.join(' ')}`)
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
