// The run view's objectives section, rendered to markup (no browser needed for what it says).
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import type { Objectives } from '../ui/api-types.gen.ts'
import { ObjectivesView, sloText, violationText } from '../ui/objectives.tsx'

const objectives: Objectives = {
  objective: 'goodput',
  slo: [{ name: 'ttft_p99_ms', metric: 'ttft', stat: 'p99', limitMs: 500 }, { name: 'tpot_p99_ms', metric: 'tpot', stat: 'p99', limitMs: 50 }],
  candidates: [
    { index: 0, combo: {}, feasible: false, violations: [{ metric: 'ttft_p99_ms', limit: 500, value: 812.4 }], goodput: { requestsPerSecond: 1.5, met: 12 }, objectiveValue: 1.5 },
    { index: 1, combo: { threads: '1' }, feasible: true, violations: [], goodput: { requestsPerSecond: 4.25, met: 34 }, objectiveValue: 4.25 },
    { index: 2, combo: { parallel: '4' }, feasible: false, violations: [{ metric: 'failed_requests', limit: 0, value: 2 }, { metric: 'tpot_p99_ms', limit: 50, value: null }], objectiveValue: null },
  ],
  pareto: [1],
  paretoAxes: { throughput: 'goodput', latency: 'ttft_p99_ms' },
  decision: { winner: 1, defaultsFeasible: false, reason: 'the defaults miss the objectives; candidate 1 meets them and is the best that does by goodput' },
}

describe('the run view: latency objectives', () => {
  it('should show the objectives, each candidate\'s feasibility and violations, the Pareto front and the decision', () => {
    const html = renderToStaticMarkup(createElement(ObjectivesView, { o: objectives }))
    expect(html).toContain('Latency objectives: TTFT p99 ≤ 500 ms, TPOT p99 ≤ 50 ms')
    expect(html).toContain('The defaults miss the objectives: the winner must meet them.')
    // The objectives' ranking is evidence; the run's one verdict is stated above it, not here.
    expect(html).toContain('By the objectives alone: the defaults miss the objectives; candidate 1 meets them')
    expect(html).not.toMatch(/Winner/)
    expect(html).toContain('Goodput (requests/s)')
    expect(html).toContain('<th scope="col">goodput (requests/s)</th>')
    expect(html).toMatch(/<tr data-candidate="0" data-feasible="false" data-pareto="false">.*ttft_p99_ms 812\.4 &gt; 500 \(\+62%\)/)
    expect(html).toMatch(/<tr data-candidate="1" data-feasible="true" data-pareto="true">.*threads=1.*4\.25 \(34 met\).*on the front/)
    expect(html).toContain('2 failed requests; tpot_p99_ms: not measured')
    expect(html).toContain('Pareto front of goodput against ttft_p99_ms')
  })

  it('should not warn about the defaults when they meet the objectives', () => {
    const html = renderToStaticMarkup(createElement(ObjectivesView, { o: { ...objectives, decision: { winner: null, defaultsFeasible: true, reason: 'no other candidate meets the objectives: keep the defaults' } } }))
    expect(html).not.toContain('The defaults miss')
    expect(html).toContain('By the objectives alone: no other candidate meets the objectives: keep the defaults.')
    expect(sloText({ ...objectives, slo: [] })).toBe('none stated')
    expect(violationText({ metric: 'failed_requests', limit: 0, value: 1 })).toBe('1 failed request')
  })
})
