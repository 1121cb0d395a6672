import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { llamacppEngine, withoutDefaults } from '@kerneltune/engines-llamacpp'
import { llamacppBackend } from '@kerneltune/engines-llamacpp/node'
import { runSweep, type SweepProgress } from './sweep.ts'

// A real sweep: a synthetic llama of about 1 MB, three combinations against threads=1, two
// repetitions each, measured by llama.cpp through node-llama-cpp. Random weights: the text is
// meaningless, the timings are real.
const dir = mkdtempSync(join(tmpdir(), 'llamacpp-sweep-'))
const modelPath = join(dir, 'tiny-q8_0.gguf')

describe('runSweep on llama.cpp (node-llama-cpp, CPU build)', () => {
  beforeAll(async () => {
    await writeGgufFile(modelPath, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 21 }).file)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('should measure every combo, compare each to the baseline and name a command line', async () => {
    const backend = llamacppBackend({ modelPath, promptTokens: 16, genTokens: 6 })
    const progress: SweepProgress[] = []
    const r = await runSweep({
      engine: llamacppEngine(),
      withoutDefaults,
      backend,
      model: modelPath,
      baseline: { threads: '1' },
      candidates: [{ combo: { threads: '1', flash_attn: 'off' } }, { combo: { threads: '1', cache_type_v: 'q8_0' } }, { combo: { threads: '1', cache_type_v: 'q4_0', flash_attn: 'off' } }],
      warmups: 0,
      minReps: 2,
      maxReps: 2,
      onProgress: (p) => progress.push(p),
    })
    expect([r.measured, r.simulated, r.backend]).toEqual([true, false, 'llamacpp'])
    expect(r.device).toMatch(/^CPU: .*llama\.cpp/)
    expect(r.baseline.reps).toHaveLength(2)
    const [fa, q8, illegal] = r.combos
    for (const c of [fa!, q8!]) {
      expect(c.reps).toHaveLength(2)
      expect(c.stats.decodeTps!.n).toBe(2)
      expect(c.comparison.decodeTps!.n).toBe(2)
      expect(['better', 'worse', 'indistinguishable']).toContain(c.comparison.decodeTps!.verdict)
      expect(c.gate?.comboHash).toBe(c.hash)
    }
    // A quantized V cache without flash attention, which llama.cpp refuses, is refused before the
    // model loads: recorded, not fatal.
    expect(illegal!.error).toMatch(/requires flash attention/)
    expect(r.recommendedArgv.slice(0, 3)).toEqual(['llama-server', '-m', modelPath])
    expect(progress.filter((p) => p.done).map((p) => p.index)).toEqual([0, 1, 2, 3])
  }, 120_000)
})
