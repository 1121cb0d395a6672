/**
 * Why a trial failed to run, for the hidden constraints of a Tier 2 session (SCOOT's term): a
 * combination whose server would not start, crashed, ran out of memory, timed out or turned every
 * request away is recorded as
 * FAILED with the server's own output lines, apart from a combination that ran but missed a
 * latency objective (infeasible by objective, judged from its measurements). The search strategy
 * is told the failure (bo: a feasibility vote multiplies its acquisition, so the neighbours of
 * failures stop being proposed); the trial keeps the kind and the lines so a person can see why.
 */
import { isKerneltuneError } from '@kerneltune/core'

export const FAILURE_KINDS = ['start', 'crash', 'oom', 'timeout', 'refused', 'rejected', 'error'] as const
export type FailureKind = (typeof FAILURE_KINDS)[number]

export interface TrialFailure {
  readonly kind: FailureKind
  readonly message: string
  /** The server's own error lines (the engine server's stderr), newest last; empty when none were captured. */
  readonly serverLines: string[]
}

/** The error and its causes, outermost first (the registry wraps a backend's error as the cause of its own). */
function chain(e: unknown): unknown[] {
  const out: unknown[] = []
  for (let x: unknown = e; x !== undefined && x !== null && out.length < 8; x = (x as { cause?: unknown }).cause) out.push(x)
  return out
}

const linesOf = (x: unknown): string[] => {
  const d = isKerneltuneError(x) ? (x.details as { errorLines?: unknown; output?: unknown } | undefined) : undefined
  const lines = Array.isArray(d?.errorLines) && d.errorLines.length ? d.errorLines : Array.isArray(d?.output) ? d.output.slice(-8) : []
  return lines.filter((l): l is string => typeof l === 'string')
}

export function classifyFailure(e: unknown): TrialFailure {
  const errors = chain(e)
  const message = e instanceof Error ? e.message : String(e)
  const serverLines = errors.map(linesOf).find((l) => l.length > 0) ?? []
  const text = [...errors.map((x) => (x instanceof Error ? x.message : String(x))), ...serverLines].join('\n')
  const code = errors.map((x) => (isKerneltuneError(x) ? x.code : undefined)).find((c) => c && c !== 'PLUGIN_ERROR')
  let kind: FailureKind = 'error'
  if (/out of memory|\bOOM\b|failed to allocate|bad_alloc|cudaMalloc|unable to allocate|killed by signal SIGKILL|signal SIGKILL/i.test(text)) kind = 'oom'
  else if (/not ready within|timed? ?out/i.test(text)) kind = 'timeout'
  else if (code === 'UNSUPPORTED_COMBINATION' || /refuses /.test(message)) kind = 'refused'
  else if (/before it was ready|could not start/i.test(text)) kind = 'start'
  // The server ran but turned every request away (a context per slot too small for the request, say).
  // The C++ reference server answers such a request 400 exceed_context_size_error (tools/server/server-context.cpp), at the warm-up already.
  else if (/every request of a load run failed|HTTP 4\d\d\b|exceed_context_size_error|exceeds the available context/i.test(text)) kind = 'rejected'
  else if (/exited|died|crash|server output|ECONNRESET|socket hang up/i.test(text)) kind = 'crash'
  return { kind, message, serverLines }
}
