/**
 * What `bench serve`, `bench capacity`, the sweep's capacity reports and the demo print under
 * --json: a session's levels with the fields vLLM's benchmark prints and each level's verdict under
 * the objectives (a capacity search's is serving's capacityJson).
 */
import type { Assessment, CandidateAssessment, Distribution } from '@kerneltune/serving'
import type { LevelResult, SessionResult } from '@kerneltune/serving/node'

/** A distribution as the JSON output gives it (the fields vLLM prints). */
const dist = (d: Distribution) => ({ mean: d.mean, p50: d.p50, p90: d.p90, p95: d.p95, p99: d.p99, std: d.std, count: d.count })

export function levelJson(l: LevelResult, a?: CandidateAssessment): Record<string, unknown> {
  const m = l.metrics
  return {
    mode: l.mode,
    ...(l.concurrency === undefined ? {} : { concurrency: l.concurrency }),
    ...(l.rate === undefined ? {} : { rate: l.rate }),
    requests: m.requests,
    durationS: m.durationS,
    ttftMs: dist(m.ttftMs),
    tpotMs: dist(m.tpotMs),
    itlMs: dist(m.itlMs),
    e2eMs: dist(m.e2eMs),
    requestThroughput: m.requestThroughput,
    outputTokensPerSecond: m.outputTokensPerSecond,
    totalTokensPerSecond: m.totalTokensPerSecond,
    tokens: { prompt: m.totalPromptTokens, output: m.totalOutputTokens, source: m.tokenSource },
    ...(m.goodput ? { goodput: m.goodput } : {}),
    // Under --slo the goodput is the objectives' (vLLM's definition over the stated limits).
    ...(a ? { feasible: a.feasible, violations: a.violations, ...(a.goodput ? { goodput: a.goodput } : {}) } : {}),
    serverReported: l.crossCheck.serverReported,
    crossCheck: { gaps: l.crossCheck.gaps, lines: l.crossCheck.lines },
    errors: m.errors,
  }
}

/** The JSON of a session: the last level's figures at the top (the heaviest load), every level in `levels`. */
export function sessionJson(s: SessionResult, a?: Assessment): Record<string, unknown> {
  const last = s.levels.length - 1
  return {
    device: s.device,
    server: { argv: s.server.argv, version: s.server.version, slots: s.server.slots ?? null, pid: s.server.pid ?? null, baseUrl: s.server.baseUrl, launched: s.server.launched },
    ...levelJson(s.levels[last]!, a?.candidates[last]),
    ...(a ? { objective: a.objective, slo: a.slo, pareto: a.pareto, paretoAxes: a.paretoAxes } : {}),
    levels: s.levels.map((l, i) => levelJson(l, a?.candidates[i])),
    notes: s.notes,
  }
}

