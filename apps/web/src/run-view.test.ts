/**
 * The run view in a real browser (issue 25): an interleaved run's A/A verdict (a false A/A winner
 * said plainly), a sequential run saying it has no A/A check, and a run with latency objectives
 * showing each candidate's feasibility, violations and the Pareto front. Real server, real store;
 * a summary the test needs (a false A/A winner, objectives) is written to the store as
 * `kerneltune sweep` writes it, over a real run's combinations. Under CI=true a missing chromium fails.
 */
import { openStore } from '@kerneltune/store'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import type { Browser, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { Experiment, Objectives, RunDetail, RunSummary } from '../ui/api-types.gen.ts'
import { browserHooks, CHROMIUM, H100, hasChromium, MODEL, open, serious, tinyRun, waitFor, type Server } from './harness.ts'

type Interleaved = Extract<Experiment, { design: 'interleaved' }>

describe.skipIf(requireOrSkip(hasChromium, `chromium at ${CHROMIUM} (apt-get install -y chromium)`))('the run view: design, A/A check and objectives', () => {
  let server: Server
  let browser: Browser
  let page: Page | undefined

  browserHooks({ started: (s, b) => { server = s; browser = b }, page: () => page, pageClosed: () => { page = undefined } })

  const finished = (id: string) => waitFor(async () => {
    const r = await server.api<RunDetail>(`/runs/${id}`)
    return r.status === 'succeeded' || r.status === 'failed' ? r : undefined
  })
  /** Rewrites a finished run's summary in the store, as a design's run writes it there. */
  async function rewrite(id: string, summary: RunSummary) {
    const store = await openStore(server.databaseUrl)
    try {
      await store.runs.finish(id, 'succeeded', summary, new Map())
    } finally {
      await store.close()
    }
  }

  it('an interleaved run shows its rounds, seed, test, the A/A comparison and verdict, the replicate variances and the design\'s verdict', async () => {
    const created = await server.api<{ id: string }>('/runs', { method: 'POST', body: {
      engine: 'vllm', hardware: H100, model: MODEL, repetitions: 2, design: 'interleaved', rounds: 4, seed: 7,
      restrict: { attention_backend: ['flash_attn_v2', 'flashinfer'], kv_layout: ['paged'], matmul_path: ['cublas'], activation_dtype: ['bf16'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
    } })
    const run = await finished(created.id)
    const e = run.summary!.experiment as Interleaved
    expect(e.design).toBe('interleaved')
    page = await open(browser, server, `?tab=run&run=${created.id}`)
    const view = page.getByTestId('experiment')
    await view.waitFor()
    expect(await view.getAttribute('data-design')).toBe('interleaved')
    expect(await view.getByRole('heading').textContent()).toBe(`Design: interleaved, ${e.rounds} rounds${e.partialRound ? ' (the last one partial)' : ''}, seed 7, ${e.test} test`)
    const aa = page.getByTestId('aa-verdict')
    expect(await aa.getAttribute('data-aa')).toBe(e.aa.declaredWinner ? 'false-winner' : e.aa.comparison ? 'passed' : 'not-compared')
    if (e.aa.comparison) expect(await aa.textContent()).toContain(`over ${e.aa.comparison.n} rounds (${e.aa.comparison.test}`)
    expect(await page.getByTestId('design-verdict').textContent()).toBe(`Verdict: ${e.verdict}`)
    // One row per combination the design compared, with its replicate variance.
    const rows = page.getByTestId('replicates').locator('tr[data-replicate]')
    expect(await rows.count()).toBe(new Set([...Object.keys(e.replicateVariance), ...Object.keys(e.paired)]).size)
    await server.api(`/runs/${created.id}`, { method: 'DELETE' })
  })

  it('says plainly when the A/A arm was declared a winner: the machine\'s noise defeats the test', async () => {
    const id = await tinyRun(server, 'vllm')
    const run = await finished(id)
    // What an interleaved run on a noisy machine stores: the A/A arm called better than the defaults.
    const aaComparison = { n: 6, improvement: 0.042, interval: { low: 0.011, high: 0.07 }, t: 3.1, df: 5, pValue: 0.031, verdict: 'better' as const, test: 'sign-flip' as const, trim: 0, pMethod: 'exact' as const, patterns: 64 }
    const experiment: Interleaved = {
      design: 'interleaved', metric: 'throughputTps', device: 'cpu:test', worker: 'w-1', winner: null, recommendedArgv: [],
      verdict: 'no combination beat the defaults; WARNING: the A/A check named the defaults better than themselves (+4.2%)',
      rounds: 6, partialRound: false, seed: 11, test: 'sign-flip', paired: { 0: null }, order: [],
      aa: { comparison: aaComparison, declaredWinner: true, falseWinnerRate: 0.19 }, replicateVariance: { 0: 0.00042 },
    }
    await rewrite(id, { ...run.summary!, experiment })
    page = await open(browser, server, `?tab=run&run=${id}`)
    const aa = page.getByTestId('aa-verdict')
    await aa.waitFor()
    expect(await aa.getAttribute('data-aa')).toBe('false-winner')
    expect(await aa.getAttribute('role')).toBe('alert')
    expect(await aa.textContent()).toMatch(/^False winner: the A\/A arm \(the defaults, measured against themselves\) was declared better than the defaults \(\+4\.2%, p = 0\.031, 95% interval \[\+1\.1%, \+7\.0%\] over 6 rounds \(sign-flip\)\)\.\s*This machine's noise defeats the test at 6 rounds/)
    expect(await page.getByTestId('aa-rate').textContent()).toMatch(/^At this noise, 19\.0% of the A\/A arm's sign-flip resamples/)
    expect(await page.getByTestId('experiment').getByRole('heading').textContent()).toBe('Design: interleaved, 6 rounds, seed 11, sign-flip test')
    expect(await page.getByTestId('experiment').textContent()).toContain('by worker w-1')
    expect(await page.getByTestId('replicates').locator('tr[data-replicate="0"] td').last().textContent()).toBe('4.20e-4')
    // The alert, the design's section and its table pass the accessibility suite's bar.
    expect(await serious(page)).toEqual([])
    await server.api(`/runs/${id}`, { method: 'DELETE' })
  })

  it('a sequential run says it has no A/A check', async () => {
    const id = await tinyRun(server, 'vllm')
    const run = await finished(id)
    expect(run.summary!.experiment?.design ?? 'sequential').toBe('sequential')
    page = await open(browser, server, `?tab=run&run=${id}`)
    const aa = page.getByTestId('aa-verdict')
    await aa.waitFor()
    expect(await page.getByTestId('experiment').getAttribute('data-design')).toBe('sequential')
    expect(await aa.textContent()).toMatch(/^No A\/A check: this run measured the defaults once/)
    await server.api(`/runs/${id}`, { method: 'DELETE' })
  })

  it('a run with latency objectives shows feasibility, the objective missed and by how much, goodput and the Pareto front', async () => {
    const id = await tinyRun(server, 'vllm')
    const run = await finished(id)
    const objectives: Objectives = {
      objective: 'goodput',
      slo: [{ name: 'ttft_p99_ms', metric: 'ttft', stat: 'p99', limitMs: 500 }],
      candidates: [
        { index: 0, combo: {}, feasible: false, violations: [{ metric: 'ttft_p99_ms', limit: 500, value: 812.4 }], goodput: { requestsPerSecond: 1.5, met: 12 }, objectiveValue: 1.5 },
        { index: 1, combo: { threads: '1' }, feasible: true, violations: [], goodput: { requestsPerSecond: 4.25, met: 34 }, objectiveValue: 4.25 },
      ],
      pareto: [1],
      paretoAxes: { throughput: 'goodput', latency: 'ttft_p99_ms' },
      decision: { winner: 1, defaultsFeasible: false, reason: 'the defaults miss the objectives; candidate 1 meets them' },
    }
    await rewrite(id, { ...run.summary!, objectives })
    page = await open(browser, server, `?tab=run&run=${id}`)
    const view = page.getByTestId('objectives')
    await view.waitFor()
    expect(await view.getByRole('heading').textContent()).toBe('Latency objectives: TTFT p99 ≤ 500 ms')
    await page.getByTestId('defaults-infeasible').waitFor()
    expect(await view.locator('tr[data-candidate="0"] td').allTextContents()).toEqual(['0', '(defaults)', 'no', 'ttft_p99_ms 812.4 > 500 (+62%)', '1.50 (12 met)', '1.50', ''])
    expect(await view.locator('tr[data-candidate="1"] td').allTextContents()).toEqual(['1', 'threads=1', 'yes', '—', '4.25 (34 met)', '4.25', 'on the front'])
    expect(await page.getByTestId('objectives-decision').textContent()).toBe('Winner: #1: the defaults miss the objectives; candidate 1 meets them')
    await server.api(`/runs/${id}`, { method: 'DELETE' })
  })
})
