import { describe, expect, it } from 'vitest'
import * as shim from './require-or-skip.ts'
import { RUNTIME, requireOrSkip } from './require-or-skip.ts'

// Records instead of registering tests and printing skip lines (which npm test would list).
function recorder() {
  const tests: { name: string, fn: () => void }[] = []
  const lines: string[] = []
  return { tests, lines, register: (name: string, fn: () => void) => void tests.push({ name, fn }), log: (line: string) => void lines.push(line) }
}

describe('requireOrSkip', () => {
  it('should run the suite when the part is there', () => {
    const r = recorder()
    expect(requireOrSkip(true, 'PostgreSQL', { ci: true, register: r.register, log: r.log })).toBe(false)
    expect(r.tests).toEqual([])
  })

  it('should skip without a failure outside CI', () => {
    const r = recorder()
    expect(requireOrSkip(false, 'PostgreSQL (set KERNELTUNE_TEST_PG_URL)', { ci: false, register: r.register, log: r.log })).toBe(true)
    expect(r.tests).toEqual([])
    expect(r.lines).toEqual(['kerneltune-skip: PostgreSQL (set KERNELTUNE_TEST_PG_URL)'])
  })

  it('should register a failing test that names the part under CI', () => {
    const r = recorder()
    expect(requireOrSkip(false, 'PostgreSQL (set KERNELTUNE_TEST_PG_URL)', { ci: true, register: r.register, log: r.log })).toBe(true)
    expect(r.tests.map((t) => t.name)).toEqual(['requires: PostgreSQL (set KERNELTUNE_TEST_PG_URL)'])
    expect(() => r.tests[0]!.fn()).toThrow(/CI=true requires this, but it is missing: PostgreSQL/)
  })

  it('should only skip under CI on a runtime where the part is not required', () => {
    const r = recorder()
    const others = (['node', 'bun', 'deno'] as const).filter((x) => x !== RUNTIME)
    expect(requireOrSkip(false, 'WebGPU', { ci: true, runtimes: others, register: r.register, log: r.log })).toBe(true)
    expect(r.tests).toEqual([])
    expect(requireOrSkip(false, 'WebGPU', { ci: true, runtimes: [RUNTIME], register: r.register, log: r.log })).toBe(true)
    expect(r.tests).toHaveLength(1)
  })
})

describe('the skip helpers', () => {
  it('should offer no skip that passes CI silently', () => {
    // requireOrSkip is the only way to skip on a missing part; a helper that never fails under
    // CI hid missing ../shared inputs before (issue 23, item 21).
    expect(Object.keys(shim).filter((name) => /skip/i.test(name)).sort()).toEqual(['SKIP_MARKER', 'requireOrSkip'])
  })

  it('should fail under CI when a ../shared input is missing, as for any real part', () => {
    const r = recorder()
    expect(requireOrSkip(false, 'data: ../shared/data/llm_throughput is absent', { ci: true, register: r.register, log: r.log })).toBe(true)
    expect(r.tests).toHaveLength(1)
    expect(() => r.tests[0]!.fn()).toThrow(/missing: data: \.\.\/shared\/data/)
    expect(r.lines).toEqual([])
  })
})
