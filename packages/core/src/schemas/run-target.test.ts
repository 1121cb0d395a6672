import { describe, expect, it } from 'vitest'
import stored from './stored-runs.fixture.json' with { type: 'json' }
import { RUN_OPTIONS_BOUNDS, RunSchema, RunTargetSchema } from './runs.ts'
import { validateWith } from '../validation.ts'

describe('RunTargetSchema', () => {
  it('should parse every stored run of the shape before options and modelPath were declared, keeping both', () => {
    for (const raw of stored.runs) {
      const run = RunSchema.parse(raw)
      const target = raw.target as { options?: unknown; modelPath?: unknown }
      // z.object strips keys it does not declare: undeclared, a stored run's options were lost on every parse.
      expect(run.target.options).toEqual(target.options)
      expect(run.target.modelPath).toEqual(target.modelPath)
    }
    expect(stored.runs.filter((r) => 'options' in r.target).length).toBeGreaterThan(0)
    expect(stored.runs.filter((r) => !('options' in r.target)).length).toBeGreaterThan(0)
  })

  it('should refuse options nested past the bound and a modelPath that is not a string', () => {
    const base = stored.runs[0]!.target
    let deep: Record<string, unknown> = {}
    for (let i = 0; i < RUN_OPTIONS_BOUNDS.maxDepth; i++) deep = { d: deep }
    const r = validateWith(RunTargetSchema, { ...base, options: deep, modelPath: 3 })
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.errors.some((e) => e.startsWith('options') && e.includes(`${RUN_OPTIONS_BOUNDS.maxDepth} levels`))).toBe(true)
      expect(r.errors.some((e) => e.startsWith('modelPath'))).toBe(true)
    }
    let fits: Record<string, unknown> = {}
    for (let i = 1; i < RUN_OPTIONS_BOUNDS.maxDepth; i++) fits = { d: fits }
    expect(validateWith(RunTargetSchema, { ...base, options: fits }).ok).toBe(true)
  })
})
