import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { UNSUPPORTED_HARDWARE_LABELS, findHardwarePreset, normalizeHardwareLabel } from './presets.ts'

const DATA = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../../../../../shared/data/llm_throughput')
const FILES: [string, string][] = [
  ['xiongjiedai_gpu_benchmarks_llamacpp.csv', 'hw_label'],
  ['argonne_llm_inference_bench_all_results.csv', 'Hardware'],
  ['llamacpp_benches_batched_bench.csv', 'hardware'],
  ['llamacpp_benches_llama_bench.csv', 'hardware'],
]

// Only the first few columns are needed and none of them is quoted, so a split suffices.
function labels(file: string, column: string): Set<string> {
  const lines = readFileSync(join(DATA, file), 'utf8').split(/\r?\n/).filter(Boolean)
  const col = lines[0]!.split(',').indexOf(column)
  return new Set(lines.slice(1).map((l) => l.split(',')[col]!).filter(Boolean))
}

describe.skipIf(requireOrSkip(existsSync(DATA), `data: ${DATA} is absent (hardware label check)`))('hardware labels in shared/data/llm_throughput (skipped: data folder absent)', () => {
  it('should map every label to a preset or list it as unsupported with a reason', () => {
    const unmapped: string[] = []
    for (const [file, column] of FILES) {
      for (const label of labels(file, column)) {
        if (!findHardwarePreset(label) && !UNSUPPORTED_HARDWARE_LABELS[normalizeHardwareLabel(label)]) unmapped.push(`${file}: ${label}`)
      }
    }
    expect(unmapped).toEqual([])
  })
})
