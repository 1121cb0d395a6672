/**
 * The parts of a stored run like the one issue 34 (items 11–13) reports, for the browser suite: a
 * 40-second interleaved sweep with objectives on a busy 2-core machine. Three rounds (the sign-flip
 * test cannot reach p < 0.05), the defaults missing the TTFT objective so that the objectives alone
 * pick #5 (goodput 65.3 against 3.98 requests/s), every candidate's paired difference on decodeTps
 * below the A/A arm's +460%, the A/A false-winner rate 0 (as 3 rounds force), and a baseline noise
 * band of ±215%, wider than its centre. The tuner's unit tests use the same run
 * (packages/tuner/src/run/noisy-run.fixture.ts).
 */
import type { Experiment, Objectives, PairedComparison, RunSummary } from '../ui/api-types.gen.ts'

type Interleaved = Extract<Experiment, { design: 'interleaved' }>

const threeRounds = (improvement: number, low: number, high: number): PairedComparison => ({
  n: 3, improvement, interval: { low, high }, t: 1, df: 2, pValue: 0.25, verdict: 'indistinguishable', test: 'sign-flip', trim: 0.2, pMethod: 'exact', patterns: 8,
})

export const noisyExperiment: Interleaved = {
  design: 'interleaved', metric: 'decodeTps', device: 'CPU: AMD EPYC (2 logical cores)', worker: null, winner: null, recommendedArgv: [],
  verdict: 'no combination is significantly better than the default settings on decodeTps in paired rounds (best: +310.0%, p=0.25, exact over 8 sign patterns); keep the defaults; with 3 rounds no comparison can reach p < 0.05 (the sign-flip test needs 7): run more rounds (a larger time budget, or shorter measurements)',
  rounds: 3, partialRound: false, seed: 1, test: 'sign-flip',
  paired: { 1: threeRounds(-0.31, -0.9, 2.1), 2: threeRounds(0.42, -0.6, 6.3), 3: threeRounds(1.9, -0.7, 40.2), 5: threeRounds(3.1, -0.52, 115.85) },
  aa: { comparison: threeRounds(4.6, -0.8, 180.4), declaredWinner: false, falseWinnerRate: 0 },
  order: [], replicateVariance: { 1: 0.41, 2: 0.93, 3: 1.7, 5: 2.2 },
}

const candidate = (index: number, feasible: boolean, goodput: number, met: number): Objectives['candidates'][number] => ({
  index, combo: index === 0 ? {} : { threads: String(index) }, feasible, violations: feasible ? [] : [{ metric: 'ttft_p99_ms', limit: 500, value: 2140.5 }], goodput: { requestsPerSecond: goodput, met }, objectiveValue: goodput,
})

export const noisyObjectives: Objectives = {
  objective: 'goodput',
  slo: [{ name: 'ttft_p99_ms', metric: 'ttft', stat: 'p99', limitMs: 500 }],
  candidates: [candidate(0, false, 3.98, 6), candidate(1, false, 2.1, 3), candidate(2, true, 31.2, 47), candidate(3, true, 12.5, 19), candidate(5, true, 65.3, 98)],
  pareto: [5],
  paretoAxes: { throughput: 'goodput', latency: 'ttft_p99_ms' },
  decision: { winner: 5, defaultsFeasible: false, reason: 'the defaults miss the objectives; combination 5 meets them and is the best that does by goodput' },
}

/** The reported run's summary over a real run's `base` (its baseline and combinations), without a stored verdict: the server derives it. */
export function noisySummary(base: RunSummary): RunSummary {
  const { verdict: _stored, ...rest } = base
  const centre = base.baseline?.value ?? 1
  const wide = { n: 3, mean: centre, halfWidth: 2.15 * centre, relHalfWidth: 2.15, cv: 0.87, level: 0.95 }
  return {
    ...rest,
    // Measured, as the reported run was (the real run underneath is the analytical backend's).
    simulated: false,
    winner: base.winner && { ...base.winner, index: 5, value: 65.3, improvement: (65.3 - 3.98) / 3.98 },
    noise: { throughputTps: wide, latencyMs: wide },
    objectives: noisyObjectives,
    experiment: noisyExperiment,
  }
}
