import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as ort from 'onnxruntime-node'
import { synthOnnxLlama } from '@kerneltune/onnx'
import type { Translation } from '@kerneltune/core'
import { CPU_SESSION_OPTIONS, ORT_CPU_DIMENSIONS, ORT_CPU_RELEASES, onnxEngine } from '../index.ts'
import { sessionOptionsOf } from '../session-options.ts'

// The release facts of cpu-release.ts against the onnxruntime-node installed here: its version,
// the names its binding and runtime hold, and what the binding accepts and refuses on a real session.
const require = createRequire(import.meta.url)
const pkgDir = dirname(require.resolve('onnxruntime-node/package.json'))
const installed = (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version
const bin = join(pkgDir, 'bin', 'napi-v6', process.platform, process.arch)
const strings = (file: string) => new Set(readFileSync(join(bin, file), 'latin1').split(/[^\x20-\x7e]+/))
const binding = strings('onnxruntime_binding.node')
const runtime = readFileSync(join(bin, process.platform === 'win32' ? 'onnxruntime.dll' : process.platform === 'darwin' ? 'libonnxruntime.1.dylib' : 'libonnxruntime.so.1'), 'latin1')
// A NUL-terminated string in the library's read-only data: the name exactly, not a prefix of a longer one.
const inRuntime = (name: string) => runtime.includes(`\0${name}\0`)

const cpu = onnxEngine({ provider: 'cpu', installedVersion: installed })
const release = ORT_CPU_RELEASES[cpu.defaultVersion as keyof typeof ORT_CPU_RELEASES]
const model = synthOnnxLlama({ params: 1e6, hidden: 128, layers: 1, vocabSize: 320, contextLength: 64, weights: 'q4' }).bytes
const sessions: { release(): Promise<void> }[] = []
afterAll(async () => { for (const s of sessions) await s.release() })
const open = async (options: object) => {
  const s = await ort.InferenceSession.create(model, options as ort.InferenceSession.SessionOptions)
  sessions.push(s)
  return s
}
const refusal = (options: object) => open(options).then(() => 'accepted', (e: Error) => e.message)

describe(`the CPU facts against the installed onnxruntime-node (${installed})`, () => {
  it('should default to the installed release, whose facts were read from that very version', () => {
    expect(ort.env.versions.node).toBe(installed)
    // Upgrading onnxruntime-node without reading its binaries again fails here.
    expect(release?.checked).toBe(installed)
  })

  it('should find every session option field and value in the binding, and every config key in the runtime', () => {
    for (const [field, values] of Object.entries(CPU_SESSION_OPTIONS)) {
      expect([field, binding.has(field)]).toEqual([field, true])
      if (Array.isArray(values)) for (const v of values) expect([v, binding.has(v)]).toEqual([v, true])
    }
    for (const key of release!.configKeys) expect([key, inRuntime(key)]).toEqual([key, true])
    // The check can fail: misspellings are not there.
    expect(binding.has('graphOptimisationLevel')).toBe(false)
    expect(inRuntime('session.intra_op.allow_spining')).toBe(false)
    expect(inRuntime('session.qdq_matmulnbits_accuracy')).toBe(false)
  })

  it('should have the binding refuse a wrong value of a typed option (session_options_helper.cc)', async () => {
    expect(await refusal({ graphOptimizationLevel: 'al' })).toBe("'graphOptimizationLevel' is not supported: al")
    expect(await refusal({ executionMode: 'paralel' })).toBe("'executionMode' is not supported: paralel")
    expect(await refusal({ intraOpNumThreads: -1 })).toBe("'intraOpNumThreads' is invalid: -1")
    expect(await refusal({ interOpNumThreads: 1.5 })).toBe("'interOpNumThreads' is invalid: 1.5")
    // The translation's file holds strings; handed over unconverted, the binding refuses them.
    expect(await refusal({ enableCpuMemArena: '0' })).toBe('Invalid argument: sessionOptions.enableCpuMemArena must be a boolean value.')
    expect(await refusal({ extra: { session: { 'session.intra_op.allow_spinning': 0 } } })).toBe('Invalid argument: sessionOptions.extra value must be a string in Node.js binding.')
  })

  it('should show why the inventory is needed: a misspelled field or config key is accepted and does nothing', async () => {
    expect(await refusal({ graphOptimisationLevel: 'disabled' })).toBe('accepted')
    expect(await refusal({ extra: { session: { 'session.intra_op.allow_spining': '0' } } })).toBe('accepted')
    const t = cpu.translate({ ort_intra_op_spinning: 'off' }) as Translation
    const misspelled = { ...t, files: { ...t.files, 'session_options.json': JSON.stringify({ 'session.intra_op.allow_spining': '0' }) } }
    expect(cpu.inventory(cpu.defaultVersion)!.check!(misspelled)).toEqual(['session config key session.intra_op.allow_spining is not in the 1.30.0 inventory'])
  })

  it('should create a real session with every value of every CPU dimension and fusion strategy', async () => {
    const combos = [
      ...ORT_CPU_DIMENSIONS.flatMap((d) => d.values.map((v) => ({ [d.id]: v.id }))),
      ...['none', 'conservative', 'aggressive'].map((f) => ({ fusion_strategy: f })),
    ]
    for (const combo of combos) {
      const { options } = sessionOptionsOf(cpu.translate(combo) as Translation)
      expect([combo, await refusal(options)]).toEqual([combo, 'accepted'])
    }
  }, 60_000)
})
