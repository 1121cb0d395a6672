/**
 * createRun: validates a request, binds the run to the catalog snapshot, enumerates the legal
 * combinations (with the engine's refusals), puts the baseline first and stores everything in one
 * transaction. Nothing is measured here: executeRun does that.
 */
import type { Catalog } from '@kerneltune/catalog'
import { comboHash } from '@kerneltune/catalog'
import { KerneltuneError, isModelFileBackend, parseWith, type Combo, type Registry, type Run } from '@kerneltune/core'
import type { Store } from '@kerneltune/store'
import { findBackend } from './backend.ts'
import { RunRequestSchema, type RunRequest, type RunRequestInput } from '../request.ts'

export interface CreateRunDeps {
  readonly catalog: Catalog
  /** Engine and measurement-backend plugins. */
  readonly registry: Registry
  readonly tenant: string
}

/** Options that executeRun needs later; stored with the target so a restarted process has them. */
export type RunOptions = Pick<RunRequest, 'warmups' | 'metric' | 'noiseFloor' | 'earlyStop' | 'margin' | 'epsilon' | 'useCache' | 'requireDevice' | 'design' | 'rounds' | 'seed' | 'test' | 'slo' | 'objective'> & {
  registryKernels?: boolean
  /** Dimensions the backend cannot exercise (MeasurementBackend.ignores), held at their default value, with it. */
  heldAtDefault?: Record<string, string>
}

/** The design options a request carries, only those it set (runs created before designs existed have none). */
const designOptions = (o: Partial<RunOptions>) => ({
  ...(o.design ? { design: o.design } : {}), ...(o.rounds !== undefined ? { rounds: o.rounds } : {}), ...(o.seed !== undefined ? { seed: o.seed } : {}),
  ...(o.test ? { test: o.test } : {}), ...(o.slo ? { slo: o.slo } : {}), ...(o.objective ? { objective: o.objective } : {}),
  ...(o.heldAtDefault && Object.keys(o.heldAtDefault).length ? { heldAtDefault: o.heldAtDefault } : {}),
})

export function runOptions(run: Run): RunOptions {
  // Read as createRun wrote them (from a validated request); what an older run lacks takes the defaults below.
  const o: Partial<RunOptions> = run.target.options ?? {}
  return { warmups: o.warmups ?? 1, metric: o.metric ?? 'throughputTps', noiseFloor: o.noiseFloor ?? 0.02, earlyStop: o.earlyStop ?? true, margin: o.margin, epsilon: o.epsilon, useCache: (o.useCache ?? true) && !o.registryKernels, ...(o.requireDevice ? { requireDevice: o.requireDevice } : {}), ...(o.registryKernels ? { registryKernels: true } : {}), ...designOptions(o) }
}

export async function planCombos(request: RunRequest, deps: Pick<CreateRunDeps, 'catalog' | 'registry'>): Promise<{ engineVersion: string; backend: string; heldAtDefault: Record<string, string>; combos: { combo: Combo; comboHash: string; isBaseline: boolean }[] }> {
  const { catalog, registry } = deps
  const engine = registry.find('engine', request.engine)
  if (!engine) {
    const names = registry.list('engine').map((e) => e.name)
    throw new KerneltuneError('INVALID_INPUT', `invalid run request: engine "${request.engine}" is not registered; engines: ${names.join(', ') || '(none)'}`, { details: { errors: [`engine: unknown engine ${request.engine}`] } })
  }
  const backend = findBackend(registry, request.backend)
  if (!backend) {
    const names = registry.list('measurement-backend').map((b) => b.name)
    throw new KerneltuneError('INVALID_INPUT', `invalid run request: measurement backend "${request.backend}" is not registered; backends: ${names.join(', ') || '(none)'}`, { details: { errors: [`backend: unknown backend ${request.backend}`] } })
  }
  if (isModelFileBackend(backend) && !request.modelPath) {
    throw new KerneltuneError('INVALID_INPUT', `invalid run request: backend ${request.backend} measures ${backend.modelFile.fileKind}; set modelPath`, { details: { errors: [`modelPath: required by backend ${request.backend}`] } })
  }
  const engineVersion = request.engineVersion ?? engine.defaultVersion
  // The release matters: catalog rules can carry a version range (e.g. a flag only some releases accept).
  const target = { hardware: request.hardware, engine: request.engine, engineVersion }
  const dims = catalog.dimensionsFor(request.engine)
  const problems: string[] = []
  for (const [id, values] of Object.entries(request.restrict ?? {})) {
    const d = dims.find((x) => x.id === id)
    if (!d) problems.push(`restrict.${id}: not a dimension of ${request.engine}; known: ${dims.map((x) => x.id).join(', ')}`)
    else for (const v of values) if (!d.values.some((x) => x.id === v)) problems.push(`restrict.${id}: ${v} is not a value; accepted: ${d.values.map((x) => x.id).join(', ')}`)
  }
  // A dimension the backend cannot exercise would only multiply combinations that measure the same
  // thing: it is held at its default (restrict may not ask for another value).
  const heldAtDefault: Record<string, string> = {}
  for (const id of backend.ignores ?? []) {
    const d = dims.find((x) => x.id === id)
    if (!d) continue
    heldAtDefault[id] = d.defaultValue
    const asked = request.restrict?.[id]?.filter((v) => v !== d.defaultValue) ?? []
    if (asked.length || (request.baseline?.[id] !== undefined && request.baseline[id] !== d.defaultValue)) problems.push(`${id}: backend ${backend.name} cannot exercise it (held at ${d.defaultValue}); measure it with a backend that does (e.g. server)`)
  }
  const baseline: Record<string, string> = Object.fromEntries(dims.map((d) => [d.id, request.restrict?.[d.id]?.includes(d.defaultValue) === false ? request.restrict[d.id]![0]! : d.defaultValue]))
  Object.assign(baseline, request.baseline ?? {})
  const check = catalog.check(baseline, target)
  if (!check.legal) problems.push(`baseline: ${[...check.issues, ...check.violations.map((v) => `${v.rule}: ${v.reason}`)].join('; ')}`)
  if (problems.length) throw new KerneltuneError('INVALID_INPUT', `invalid run request: ${problems.join('; ')}`, { details: { errors: problems } })

  const refuse = async (combo: Combo) => {
    const t = await engine.translate(combo, { version: engineVersion })
    return t.ok ? undefined : { dimension: t.dimension, value: t.value, reason: t.reason }
  }
  const baseHash = comboHash(baseline)
  const combos = [{ combo: baseline as Combo, comboHash: baseHash, isBaseline: true }]
  for await (const e of catalog.enumerateAsync(target, { mode: request.mode, refuse })) {
    if (e.status !== 'legal' || e.hash === baseHash) continue
    if (request.restrict && Object.entries(request.restrict).some(([id, vs]) => !vs.includes(e.combo[id] ?? ''))) continue
    if (Object.entries(heldAtDefault).some(([id, v]) => e.combo[id] !== undefined && e.combo[id] !== v)) continue
    combos.push({ combo: e.combo, comboHash: e.hash, isBaseline: false })
    if (combos.length > request.maxCombos) {
      throw new KerneltuneError('INVALID_INPUT', `invalid run request: more than maxCombos=${request.maxCombos} legal combinations; narrow the sweep with restrict, use mode quick, or raise maxCombos`, { details: { errors: [`maxCombos: more than ${request.maxCombos} combinations`] } })
    }
  }
  const refusal = await refuse(baseline)
  if (refusal) throw new KerneltuneError('INVALID_INPUT', `invalid run request: engine ${request.engine} cannot express the baseline: ${refusal.reason}`, { details: { errors: [`baseline.${refusal.dimension}: ${refusal.reason}`] } })
  return { engineVersion, combos, backend: backend.name, heldAtDefault }
}

export async function createRun(store: Store, input: RunRequestInput | unknown, deps: CreateRunDeps): Promise<Run> {
  const request = parseWith(RunRequestSchema, input, 'run request')
  const { engineVersion, combos, backend, heldAtDefault } = await planCombos(request, deps)
  const options: RunOptions = { warmups: request.warmups, metric: request.metric, noiseFloor: request.noiseFloor, earlyStop: request.earlyStop, margin: request.margin, epsilon: request.epsilon, useCache: request.useCache, ...(request.requireDevice ? { requireDevice: request.requireDevice } : {}), ...(request.registryKernels ? { registryKernels: true } : {}), ...designOptions({ ...request, heldAtDefault }) }
  return store.runs.create({
    tenant: deps.tenant,
    mode: request.mode,
    target: { model: request.model, hardware: request.hardware, engine: request.engine, engineVersion, workload: request.workload, options, ...(request.modelPath ? { modelPath: request.modelPath } : {}) },
    snapshot: { hash: deps.catalog.hash, version: deps.catalog.version, content: deps.catalog.snapshot },
    qualityGate: request.qualityGate,
    backend,
    repetitions: request.repetitions,
    combos,
  })
}
