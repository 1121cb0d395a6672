/**
 * applyRun: translates the winning combination of a run for the run's engine (flags, environment
 * and files) and, when a deployment is named, records it as that deployment's current combination.
 * A dimension the run did not measure takes the baseline's value where a legal combination allows
 * it, and a winner measured by a proxy comes with warnings that say so: it was not measured on
 * the engine.
 */
import { KerneltuneError, type Combo, type Registry, type Translation } from '@kerneltune/core'
import type { Deployment, Store } from '@kerneltune/store'
import type { RunSummary } from './summary.ts'
import { runVerdict } from './verdict.ts'

export interface ApplyResult {
  runId: string
  engine: string
  combo: Combo
  comboHash: string
  /** The gate's verdict on the winner; applying a combination the gate rejected needs force. */
  gatePassed: boolean | null
  translation: Translation
  deployment: Deployment | null
  /** What a person should know before using it: a proxy measurement, unmeasured dimensions. */
  warnings: string[]
}

export async function applyRun(store: Store, registry: Registry, tenant: string | null, runId: string, options: { deploymentId?: string; force?: boolean; model?: string } = {}): Promise<ApplyResult> {
  const run = await store.runs.require(tenant, runId)
  const summary = run.summary as RunSummary | null
  if (run.status !== 'succeeded' || !summary?.winner) throw new KerneltuneError('CONFLICT', `run ${runId} is ${run.status} and has no winner to apply; wait for it to succeed`)
  const combos = await store.runs.combos(runId)
  const winner = combos.find((c) => c.index === summary.winner!.index)!
  const warnings: string[] = []
  if (summary.proxy) {
    warnings.push(`the winner was not measured on the engine: it was measured by a proxy, ${summary.proxy.on}, standing in for ${summary.proxy.of}; measure it on the target before relying on it`)
  }
  // Older summaries have no notMeasured; their winner is applied as stored.
  const notMeasured = summary.notMeasured ?? []
  let combo = winner.combo
  if (notMeasured.length) {
    // The winner's measured values with the unmeasured ones as close to the baseline as a legal
    // (enumerated) combination allows: mixing values freely could give one the engine refuses.
    const baseline = combos.find((c) => c.isBaseline)
    const same = (c: Combo) => Object.keys(c).every((d) => notMeasured.includes(d) || c[d] === winner.combo[d])
    const closeness = (c: Combo) => notMeasured.filter((d) => baseline && c[d] === baseline.combo[d]).length
    combo = combos.filter((c) => same(c.combo)).sort((a, b) => closeness(b.combo) - closeness(a.combo) || a.index - b.index)[0]?.combo ?? winner.combo
    warnings.push(`not measured by the ${run.backend} backend, so set as close to the baseline as a legal combination allows: ${notMeasured.map((d) => `${d}=${combo[d]}`).join(', ')}`)
  }
  const gatePassed = winner.gate ? winner.gate.passed : null
  if (gatePassed === false && !options.force) {
    throw new KerneltuneError('CONFLICT', `the winning combination of run ${runId} did not pass the ${run.qualityGate} quality gate (${winner.gate!.reasons.join('; ')}); pass force to apply it anyway`)
  }
  // The run's one verdict decides too: a candidate it does not choose (the defaults stay) is applied only when told to.
  const verdict = summary.verdict ?? runVerdict(summary, { winnerGate: winner.gate })
  if ((verdict.kind === 'withheld' || verdict.kind === 'keep-defaults') && verdict.index === null && winner.index !== summary.baseline?.index && !options.force) {
    throw new KerneltuneError('CONFLICT', `run ${runId}'s verdict keeps the defaults (${verdict.headline}); pass force to apply combination ${winner.index} anyway`)
  }
  const engine = registry.get('engine', run.target.engine)
  const t = await engine.translate(combo, { version: run.target.engineVersion, modelSpec: run.target.model, hardware: run.target.hardware, ...(options.model ? { model: options.model } : {}) })
  if (!t.ok) throw new KerneltuneError('UNSUPPORTED_COMBINATION', `engine ${engine.name} ${t.version} cannot express ${t.dimension}=${t.value}: ${t.reason}`)
  const deployment = options.deploymentId ? await store.deployments.applyCombo(tenant, options.deploymentId, combo, runId) : null
  return { runId, engine: engine.name, combo, comboHash: winner.comboHash, gatePassed, translation: t, deployment, warnings }
}
