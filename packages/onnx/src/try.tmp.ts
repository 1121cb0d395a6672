import * as ort from 'onnxruntime-node'
import { synthOnnxLlama } from './index.ts'
const m = synthOnnxLlama({ params: 1.6e6, hidden: 256, layers: 2, vocabSize: 320, weights: 'q4', contextLength: 128, seed: 3 })
const tries: Record<string, ort.InferenceSession.SessionOptions> = {
  ok: { graphOptimizationLevel: 'all', executionMode: 'parallel', intraOpNumThreads: 1, interOpNumThreads: 1, enableCpuMemArena: false, enableMemPattern: false },
  badLevel: { graphOptimizationLevel: 'al' as never },
  badMode: { executionMode: 'paralel' as never },
  badThreads: { intraOpNumThreads: -1 },
  floatThreads: { intraOpNumThreads: 1.5 },
  badArena: { enableCpuMemArena: 'yes' as never },
  unknownKey: { extra: { session: { 'session.qdq_matmulnbits_acuracy_level': '4' } } } as never,
  badAccValue: { extra: { session: { 'session.qdq_matmulnbits_accuracy_level': 'x' } } } as never,
  intraSpin: { extra: { session: { 'session.intra_op.allow_spinning': '2' } } } as never,
  unknownTop: { graphOptimisationLevel: 'all' } as never,
  badEP: { executionProviders: ['cpux'] },
  cpuArena: { executionProviders: [{ name: 'cpu', useArena: false } as never] },
  badLogLevel: { logSeverityLevel: 7 as never },
  layout: { graphOptimizationLevel: 'layout' as never },
}
for (const [k, o] of Object.entries(tries)) {
  try { const s = await ort.InferenceSession.create(m.bytes, o); console.log(k, 'OK'); await s.release() } catch (e) { console.log(k, 'ERR', (e as Error).message) }
}
