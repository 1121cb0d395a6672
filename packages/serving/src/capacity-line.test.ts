import { describe, expect, it } from 'vitest'
import { capacityJson, capacityLine, levelText } from './capacity-line.ts'

const point = (level: number, feasible: boolean) => ({ level, phase: 'bracket' as const, repeat: 0, feasible, figures: { ttftP99: level } })

describe('capacityLine', () => {
  it('should say the capacity with its interval, or why the search found none', () => {
    expect(levelText('req/s', 4.2)).toBe('4.200 req/s')
    expect(levelText('concurrency', 3)).toBe('concurrency 3')
    const points = [point(1, true), point(2, false)]
    expect(capacityLine({ value: 1, low: 1, high: 2, unit: 'concurrency', stop: 'converged', points })).toBe('capacity: concurrency 1 (met at concurrency 1, missed at concurrency 2; 2 measurements)')
    expect(capacityLine({ value: null, low: 0.05, high: 0.05, unit: 'req/s', stop: 'min', points: [point(0.05, false)] })).toBe('capacity: none: the objectives were missed even at 0.050 req/s (1 measurements)')
    expect(capacityLine({ value: 8, low: 8, high: null, unit: 'concurrency', stop: 'max', points })).toMatch(/^capacity: at least concurrency 8: the objectives still held at the highest level tried/)
    expect(capacityLine({ value: null, low: 1, high: null, unit: 'req/s', stop: 'deadline', points: [] })).toMatch(/not measured: the time budget ended/)
  })

  it('should give each point of the JSON its level and verdict next to its figures', () => {
    const c = { value: 1, low: 1, high: 2, unit: 'concurrency' as const, stop: 'converged' as const, points: [point(1, true), point(2, false)] }
    expect(capacityJson(c)).toEqual({ value: 1, low: 1, high: 2, unit: 'concurrency', stop: 'converged', points: [{ level: 1, phase: 'bracket', repeat: 0, feasible: true, ttftP99: 1 }, { level: 2, phase: 'bracket', repeat: 0, feasible: false, ttftP99: 2 }] })
  })
})
