/**
 * The run view in a real browser (issue 25): an interleaved run's A/A verdict (a false A/A winner
 * said plainly), a sequential run saying it has no A/A check, and a run with latency objectives
 * showing each candidate's feasibility, violations and the Pareto front. Real server, real store;
 * a summary the test needs (a false A/A winner, objectives, the noisy run of issue 34) is written
 * to the store as `kerneltune sweep` writes it, over a real run's combinations, without a verdict:
 * the server derives the run's one verdict from it, as for any run stored before runs kept one.
 * Under CI=true a missing chromium fails.
 */
import { openStore } from '@kerneltune/store'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import type { Browser, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { Experiment, Objectives, RunDetail, RunSummary } from '../ui/api-types.gen.ts'
import { ARTIFACTS, browserHooks, CHROMIUM, H100, hasChromium, MODEL, open, serious, tinyRun, waitFor, type Server } from './harness.ts'
import { noisySummary } from './noisy-run.fixture.ts'

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
  /** Rewrites a finished run's summary in the store, as a design's run writes it there; the verdict is left to the server to derive. */
  async function rewrite(id: string, summary: RunSummary) {
    const { verdict: _stale, ...rest } = summary
    const store = await openStore(server.databaseUrl)
    try {
      await store.runs.finish(id, 'succeeded', rest, new Map())
    } finally {
      await store.close()
    }
  }

  it('an interleaved run shows its rounds, seed, test, the A/A comparison and verdict, the replicate variances and the run\'s one verdict', async () => {
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
    // 4 sign-flip rounds cannot reach p < 0.05: the view says what the A/A arm read, not that it "passed".
    const v = run.summary!.verdict!
    expect(v.power).toMatchObject({ rounds: e.rounds, minRounds: 7, canDecide: false })
    expect(await aa.getAttribute('data-aa')).toBe(e.aa.declaredWinner ? 'false-winner' : !e.aa.comparison ? 'not-compared' : v.aa!.noiseDominates ? 'noise' : 'underpowered')
    if (e.aa.comparison) expect(await aa.textContent()).toContain(`${e.rounds} rounds cannot reach p < 0.05: the sign-flip test on ${e.metric} needs at least 7, so the A/A arm has no false-winner rate to report`)
    expect(await page.getByTestId('aa-rate').count()).toBe(0)
    // One verdict: the run's, above the design's evidence; the design section states none of its own.
    expect(await page.getByTestId('verdict').textContent()).toBe(run.summary!.verdict!.headline)
    expect(await page.getByTestId('design-verdict').count()).toBe(0)
    // One row per combination the design compared, with its replicate variance.
    const rows = page.getByTestId('replicates').locator('tr[data-replicate]')
    expect(await rows.count()).toBe(new Set([...Object.keys(e.replicateVariance), ...Object.keys(e.paired)]).size)
    await server.api(`/runs/${created.id}`, { method: 'DELETE' })
  })

  it('says plainly when the A/A arm was declared a winner: the machine\'s noise defeats the test', async () => {
    const id = await tinyRun(server, 'vllm')
    const run = await finished(id)
    // What an interleaved run on a noisy machine stores: the A/A arm called better than the defaults.
    // 8 rounds: the fewest at which the trimmed sign-flip test reaches p < 0.05 (2^(1+1-8) = 0.0156).
    const aaComparison = { n: 8, improvement: 0.042, interval: { low: 0.011, high: 0.07 }, t: 3.1, df: 7, pValue: 0.031, verdict: 'better' as const, test: 'sign-flip' as const, trim: 0.2, pMethod: 'exact' as const, patterns: 256 }
    const experiment: Interleaved = {
      design: 'interleaved', metric: 'throughputTps', device: 'cpu:test', worker: 'w-1', winner: null, recommendedArgv: [],
      verdict: 'no combination beat the defaults; WARNING: the A/A check named the defaults better than themselves (+4.2%)',
      rounds: 8, partialRound: false, seed: 11, test: 'sign-flip', paired: { 0: null }, order: [],
      aa: { comparison: aaComparison, declaredWinner: true, falseWinnerRate: 0.19 }, replicateVariance: { 0: 0.00042 },
    }
    await rewrite(id, { ...run.summary!, experiment })
    page = await open(browser, server, `?tab=run&run=${id}`)
    const aa = page.getByTestId('aa-verdict')
    await aa.waitFor()
    expect(await aa.getAttribute('data-aa')).toBe('false-winner')
    expect(await aa.getAttribute('role')).toBe('alert')
    expect(await aa.textContent()).toMatch(/^False winner: the A\/A arm \(the defaults, measured against themselves\) was declared better than the defaults \(\+4\.2%, p = 0\.031, 95% interval \[\+1\.1%, \+7\.0%\] over 8 rounds \(sign-flip, 20% trimmed\)\)\.\s*This machine's noise defeats the test at 8 rounds/)
    expect(await page.getByTestId('aa-rate').textContent()).toMatch(/^At this noise, 19\.0% of the A\/A arm's sign-flip resamples/)
    expect(await page.getByTestId('experiment').getByRole('heading').textContent()).toBe('Design: interleaved, 8 rounds, seed 11, sign-flip test')
    // A crowned A/A arm withholds the run's verdict.
    expect(await page.getByTestId('verdict').textContent()).toMatch(/^No verdict, the defaults stay: the A\/A arm \(the defaults against themselves\) was called better than the defaults \(\+4\.2% on throughputTps\)/)
    expect(await page.getByTestId('experiment').textContent()).toContain('by worker w-1')
    expect(await page.getByTestId('replicates').locator('tr[data-replicate="0"] td').last().textContent()).toBe('4.20e-4')
    // The alert, the design's section and its table pass the accessibility suite's bar.
    expect(await serious(page)).toEqual([])
    await server.api(`/runs/${id}`, { method: 'DELETE' })
  })

  it('the run issue 34 reports (3 rounds, objectives, the A/A arm at +460%) states one verdict, every figure with its unit, and axes that start at 0', async () => {
    const created = await server.api<{ id: string }>('/runs', { method: 'POST', body: {
      engine: 'vllm', hardware: H100, model: MODEL, repetitions: 3,
      restrict: { attention_backend: ['flash_attn_v2', 'flashinfer'], kv_layout: ['paged'], matmul_path: ['cublas', 'cutlass'], activation_dtype: ['bf16', 'fp8_e4m3'], fusion_strategy: ['none', 'aggressive'], cuda_graph: ['per-shape'] },
    } })
    const run = await finished(created.id)
    // The fixture speaks of combinations 0 to 5.
    expect(run.progress.total).toBeGreaterThan(5)
    await rewrite(created.id, noisySummary(run.summary!))
    page = await open(browser, server, `?tab=run&run=${created.id}`)
    const verdict = page.getByTestId('verdict')
    await verdict.waitFor()
    // One verdict, and it is not a winner: the A/A arm read more than any candidate did.
    expect(await verdict.textContent()).toBe('No verdict, the defaults stay: the A/A arm (the defaults against themselves) read +460.0% on decodeTps, larger than every difference measured: the noise is larger than the effect; 3 rounds cannot reach p < 0.05: the sign-flip test on decodeTps needs at least 7; the machine was too noisy to decide.')
    expect(await page.getByRole('region', { name: 'Result' }).getAttribute('data-verdict')).toBe('withheld')
    expect(await page.locator('main').textContent()).not.toMatch(/winner:/i)
    // Every figure with its unit: goodput in requests/s, the paired ratio's interval in percent.
    expect(await page.getByTestId('verdict-figures').locator('div').evaluateAll((ds) => ds.map((d) => `${d.querySelector('dt')!.textContent} = ${d.querySelector('dd')!.textContent}`))).toEqual([
      'goodput of #5 = 65.3 requests/s',
      'goodput of the defaults = 3.98 requests/s',
      '#5 against the defaults on goodput = +1540.7%',
      '#5 against the defaults on decodeTps, paired by round = +310.0%',
      '95% interval of the ratio of #5 to the defaults on decodeTps = -52.0% to +11585.0%',
    ])
    expect(await page.getByTestId('best').textContent()).toBe('goodput 65.3 requests/s, #5 (best candidate, not applied)')
    expect(await page.getByRole('button', { name: 'Apply #5 anyway (overrides the verdict)' }).count()).toBe(1)
    // The A/A arm: what it read, not a 0% false-winner rate that 3 rounds force.
    const aa = page.getByTestId('aa-verdict')
    expect(await aa.getAttribute('data-aa')).toBe('noise')
    expect(await aa.textContent()).toContain('read +460.0% on decodeTps against the defaults, as large as or larger than every difference measured (the largest difference of a candidate from the defaults is ±310.0%): the noise is larger than every effect measured.')
    expect(await page.getByTestId('aa-rate').count()).toBe(0)
    expect(await page.getByTestId('objectives-decision').textContent()).toBe('By the objectives alone: the defaults miss the objectives; combination 5 meets them and is the best that does by goodput.')
    // The plot: a ±215% noise band, cut at 0 on both axes; no tick below 0.
    const pareto = page.getByTestId('pareto')
    await pareto.locator('circle[data-index]').first().waitFor()
    const ticks = async (axis: 'x' | 'y') => (await pareto.locator(`g[aria-label="${axis}-axis tick label"] text`).allTextContents()).map((t) => Number(t.replace(/,/g, '').replace('−', '-')))
    for (const axis of ['x', 'y'] as const) {
      const t = await ticks(axis)
      expect(t.length).toBeGreaterThan(1)
      expect(Math.min(...t)).toBe(0)
    }
    expect(await pareto.locator('.noise-band-y, .noise-band-x').count()).toBe(2)
    expect((await page.getByTestId('noise-note').allTextContents()).every((n) => n.includes('drawn from 0 up: no value lies below it'))).toBe(true)
    expect(await serious(page)).toEqual([])
    await page.screenshot({ path: `${ARTIFACTS}/run-detail-noisy.png`, fullPage: true })
    await server.api(`/runs/${created.id}`, { method: 'DELETE' })
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
    expect(await page.getByTestId('objectives-decision').textContent()).toBe('By the objectives alone: the defaults miss the objectives; candidate 1 meets them.')
    await server.api(`/runs/${id}`, { method: 'DELETE' })
  })
})
