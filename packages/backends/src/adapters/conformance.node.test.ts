import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { checkMeasurementBackend } from '../conformance.ts'
import { CONFORMANCE_REQUEST } from '../test-fixtures.ts'
import { gpuKernelsBackend } from './gpu-kernels-backend.node.ts'
import { llamacppRunBackend } from '@kerneltune/engines-llamacpp/node'

// The real backends against the contract, on this machine's device: WGSL kernels through WebGPU
// (Deno; Mesa lavapipe on a machine without a GPU) and llama.cpp on a 1 MB synthetic GGUF.
const gpu = gpuKernelsBackend()
const gpuHere = await gpu.available!()
const dir = mkdtempSync(join(tmpdir(), 'backends-conformance-'))
const gguf = join(dir, 'tiny-q8_0.gguf')
await writeGgufFile(gguf, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 5 }).file)
const llama = llamacppRunBackend()
const llamaHere = await llama.modelFile.forModel(gguf).available!()
afterAll(() => {
  gpu.close()
  rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(requireOrSkip(gpuHere.ok, `gpu-kernels backend: ${gpuHere.reason}`, { runtimes: ['node'] }))('the gpu-kernels backend', () => {
  it('should conform to the measurement-backend contract', async () => {
    const report = await checkMeasurementBackend(gpu, CONFORMANCE_REQUEST)
    expect(report.problems).toEqual([])
    expect(report.device).toMatch(/WebGPU via Deno/)
    // One job per measurement in the worker: it reports no progress to abort at.
    expect(report.notRun).toEqual([expect.stringMatching(/reports no progress/)])
  }, 120_000)
})

describe.skipIf(requireOrSkip(llamaHere.ok, `node-llama-cpp backend: ${llamaHere.reason}`, { runtimes: ['node'] }))('the node-llama-cpp backend', () => {
  it('should conform to the measurement-backend contract on a GGUF', async () => {
    const report = await checkMeasurementBackend(llama, CONFORMANCE_REQUEST, { modelPath: gguf, repetitions: [2] })
    expect(report).toMatchObject({ problems: [], notRun: [] })
    expect(report.device).toMatch(/llama\.cpp/)
  }, 180_000)

  it('should refuse to check a model-file backend without a file', async () => {
    expect((await checkMeasurementBackend(llama, CONFORMANCE_REQUEST)).problems).toEqual([expect.stringMatching(/pass options\.modelPath/)])
  })
})
