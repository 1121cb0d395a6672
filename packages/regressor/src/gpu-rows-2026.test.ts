import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { chipOf } from './chips.ts'
import { parseQuery } from './query.ts'
import { GPU_ROWS_FILE, HOST_LIMITED, OLD_MI300X, SYCL_BF16_DECODE, gpuRows2026 } from '../scripts/gpu-rows-2026.ts'
import type { DataSet } from '../scripts/data-common.ts'

const DATA = fileURLToPath(new URL('../../../../shared/data/llm_throughput', import.meta.url))

describe.skipIf(requireOrSkip(existsSync(`${DATA}/${GPU_ROWS_FILE}`), `data: ${DATA}/${GPU_ROWS_FILE} is absent (PROVENANCE §A5 rows)`))('llamacpp_gpu_rows_2026.csv as training samples (issue 38)', () => {
  const out: DataSet = { samples: [], files: [] }
  gpuRows2026(DATA, out)
  const r = out.files[0]!

  it('should use or count every row under its reason', () => {
    expect(r.rows).toBe(188)
    expect(r.used + Object.values(r.excluded).reduce((a, b) => a + b, 0)).toBe(r.rows)
    expect(r.excluded[HOST_LIMITED]).toBe(13)
    expect(r.excluded[SYCL_BF16_DECODE]).toBe(6)
    expect(r.excluded[OLD_MI300X]).toBe(4)
    expect(out.samples).toHaveLength(r.used)
  })

  it('should give each row its backend, micro-batch and preset figures, and hold the Vega 20 cards out as one die', () => {
    const queries = out.samples.map((s) => ({ group: s.group!, q: parseQuery(s.query) }))
    const b70 = queries.filter((x) => x.group === 'arc-pro-b70')
    expect(new Set(b70.map((x) => x.q.backend))).toEqual(new Set(['sycl', 'vulkan']))
    expect(b70.every((x) => x.q.int8Tops === 91.8 && x.q.fp16VectorTflops === 45.9 && x.q.memBwGbs === 608 && x.q.vendor === 'intel')).toBe(true)
    // The PR compare tables sweep the micro-batch: each row keeps its own.
    expect(queries.filter((x) => x.group === 'mi50' && x.q.phase === 'prefill').map((x) => x.q.ubatch)).toContain(128)
    expect(chipOf('mi50')).toBe(chipOf('mi60'))
    // Mixed-format files carry their own bits per weight (an unsloth Q4_K_XL is not Q4_K's 4.5).
    const xl = queries.filter((x) => x.q.quant === 'Q4_K' && x.q.bitsPerWeight !== undefined)
    expect(xl.length).toBeGreaterThan(0)
    expect(xl.every((x) => x.q.bitsPerWeight! > 4.5)).toBe(true)
  })
})
