/** Shared fixtures of the tuner's tests: a permissive engine plugin, a model, a device. */
import type { EnginePlugin } from '@kerneltune/core'

export const testEngine = (name = 'vllm'): EnginePlugin => ({
  name, kind: 'engine', apiVersion: 1, displayName: 'Test engine', defaultVersion: '0.6.0',
  supportedVersions: () => ['0.6.0'],
  translate: (combo, ctx) => ({ ok: true, engine: name, version: ctx?.version ?? '0.6.0', argv: Object.entries(combo).map(([k, v]) => `--${k}=${v}`), env: {}, files: {}, notes: [] }),
})

export const MODEL = { name: 'tiny', paramsB: 1.1, hiddenDim: 2048, numLayers: 22, numHeads: 32, numKvHeads: 4, intermediateDim: 5632, quant: 'F16' as const }
export const HARDWARE = { name: 'NVIDIA H100 SXM', vendor: 'nvidia' as const, memBwGbs: 3350, fp16Tflops: 989, computeCapability: '9.0' }
