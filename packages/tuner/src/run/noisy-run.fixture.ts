/**
 * A stored run like the one issue 34 (items 11 and 12) reports: a 40-second interleaved sweep with
 * latency objectives on a busy 2-core machine. Three rounds (the sign-flip test cannot reach
 * p < 0.05), the defaults missing the TTFT objective so that the objectives alone pick #5 (goodput
 * 65.3 against 3.98 requests/s, +1538.3%), every candidate's paired difference on decodeTps below
 * the A/A arm's +460%, and the A/A false-winner rate 0 (as it must be at 3 rounds).
 */
import type { PairedComparison } from '@kerneltune/experiment'
import type { InterleavedSummary } from './experiment-summary.ts'
import type { RunObjectives } from './objectives.ts'
import type { RunSummary } from './summary.ts'

/** A 3-round sign-flip comparison: its p-value cannot go below 0.25 with the 20% trim (2^(0+1-3)). */
export const threeRounds = (improvement: number, low: number, high: number, pValue = 0.25): PairedComparison => ({
  n: 3, improvement, interval: { low, high }, t: 1, df: 2, pValue, verdict: 'indistinguishable', test: 'sign-flip', trim: 0.2, pMethod: 'exact', patterns: 8,
})

const combo = (i: number): Record<string, string> => (i === 0 ? {} : { threads: String(i), parallel: '4' })

export const noisyExperiment: InterleavedSummary = {
  design: 'interleaved', metric: 'decodeTps', device: 'CPU: AMD EPYC (2 logical cores)', worker: null, winner: null,
  verdict: 'no combination is significantly better than the default settings on decodeTps in paired rounds (best: +310.0%, p=0.25, exact over 8 sign patterns); keep the defaults; with 3 rounds no comparison can reach p < 0.05 (the sign-flip test needs 7): run more rounds (a larger time budget, or shorter measurements)',
  recommendedArgv: ['engine-server', '-m', 'model.gguf'],
  rounds: 3, partialRound: false, seed: 1, test: 'sign-flip',
  paired: { 1: threeRounds(-0.31, -0.9, 2.1), 2: threeRounds(0.42, -0.6, 6.3), 3: threeRounds(1.9, -0.7, 40.2), 4: null, 5: threeRounds(3.1, -0.52, 115.85) },
  aa: { comparison: threeRounds(4.6, -0.8, 180.4), declaredWinner: false, falseWinnerRate: 0 },
  order: [['5', 'aa', '1', 'baseline', '3', '2', '4'], ['baseline', '2', '5', '3', 'aa', '1', '4'], ['3', '1', 'aa', '4', '5', 'baseline', '2']],
  replicateVariance: { 1: 0.41, 2: 0.93, 3: 1.7, 5: 2.2 },
}

const candidate = (index: number, feasible: boolean, goodput: number, met: number): RunObjectives['candidates'][number] => ({
  index, combo: combo(index), feasible, violations: feasible ? [] : [{ metric: 'ttft_p99_ms', limit: 500, value: 2140.5 }], goodput: { requestsPerSecond: goodput, met }, objectiveValue: goodput,
})

export const noisyObjectives: RunObjectives = {
  objective: 'goodput',
  slo: [{ name: 'ttft_p99_ms', metric: 'ttft', stat: 'p99', limitMs: 500 }],
  candidates: [candidate(0, false, 3.98, 6), candidate(1, false, 2.1, 3), candidate(2, true, 31.2, 47), candidate(3, true, 12.5, 19), candidate(4, false, 0, 0), candidate(5, true, 65.3, 98)],
  pareto: [5],
  paretoAxes: { throughput: 'goodput', latency: 'ttft_p99_ms' },
  decision: { winner: 5, defaultsFeasible: false, reason: 'the defaults miss the objectives; combination 5 meets them and is the best that does by goodput', test: 'the winner beats the defaults on goodput in a sign-flip test on the per-round differences (two-sided p < 0.05, paired by round)' },
}

const noise = { n: 3, mean: 11.2, halfWidth: 24.1, relHalfWidth: 2.15, cv: 0.87, level: 0.95 }

export const noisyRun: RunSummary & { experiment?: InterleavedSummary | undefined } = {
  metric: 'throughputTps', backend: 'server', simulated: false, proxy: null, notMeasured: [], cacheScope: 'tenant',
  devices: ['CPU: AMD EPYC (2 logical cores)'], durationMs: 40_210,
  counts: { total: 6, measured: 6, failed: 0, cached: 0, stoppedEarly: 0, pending: 0 },
  baseline: { index: 0, comboHash: 'h0', combo: {}, value: 11.2 },
  winner: { index: 5, comboHash: 'h5', combo: combo(5), value: 65.3, improvement: (65.3 - 3.98) / 3.98, proxy: null, notMeasured: [], notToldApart: {} },
  gate: { method: 'regression', status: 'pass', passed: true, reasons: [] },
  noise: { throughputTps: noise, latencyMs: { ...noise, mean: 480, halfWidth: 1030 } },
  pareto: [], sensitivity: {},
  objectives: noisyObjectives,
  experiment: noisyExperiment,
}
