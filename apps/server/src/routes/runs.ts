/** Tier 1 run endpoints: create, list, detail, combos, SSE events, cancel, apply, delete. */
import { RunModeSchema, RunStatusSchema, type MeasurementProxy, type Registry, type Run } from '@kerneltune/core'
import { usageNotes } from '@kerneltune/kernel-lab'
import { applyRun, createRun, proxyLabel, RUN_OWNER_LEASE_MS, RunRequestSchema, runVerdict, type ProxyLabel, type VerdictInput } from '@kerneltune/tuner'
import type { Store } from '@kerneltune/store'
import { z } from 'zod'
import type { AppDeps } from '../deps.ts'
import { IdParams, route, withPlainNames, type Route } from '../http.ts'
import { ApplyResponse, CancelResponse, RunCombosResponse, RunDetailResponse, RunListResponse, RunResponse } from '../responses.ts'
import { inProcessAuth } from '../in-process.ts'
import { followSse, type SendEvent } from '../sse.ts'
import { onnxModelOf, OnnxModelRequestSchema } from '../onnx-models.ts'
import { runRoofline } from '../roofline-prediction.ts'

const IsoInstant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((v) => new Date(v).toISOString())

const ListQuery = z.object({
  status: RunStatusSchema.optional(),
  mode: RunModeSchema.optional(),
  engine: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  /**
   * Created at or after / before (ISO-8601 date-time with Z or an offset, or a date = its UTC
   * midnight). Normalised to UTC ISO strings, the form created_at is stored in, so the store
   * compares them as text on its index.
   */
  since: IsoInstant.optional(),
  until: IsoInstant.optional(),
  /** brief: what a list shows (ids, status, engine, model and hardware names, progress, winner value), without the summary and full specs. */
  view: z.enum(['full', 'brief']).default('full'),
}).strict().refine((q) => !q.since || !q.until || q.since < q.until, { message: 'since must be before until', path: ['since'] })

const ApplyBody = z.union([
  z.object({ deploymentId: z.string().min(1).max(100).optional(), force: z.boolean().optional(), model: z.string().min(1).max(500).optional() }).strict(),
  z.undefined(),
])

const TERMINAL = ['succeeded', 'failed', 'cancelled']

/**
 * A run request, or one over ONNX Runtime that names the shape of a decoder to synthesize
 * (`onnxModel`, as the CLI's `sweep --engine onnx --params N`) instead of a model file: the run
 * then measures that file and stores its real shape as the model.
 */
const RunBody = withPlainNames(RunRequestSchema.safeExtend({ onnxModel: OnnxModelRequestSchema.optional() }).superRefine((r, ctx) => {
  if (!r.onnxModel) return
  if (r.backend !== 'onnxruntime') ctx.addIssue({ code: 'custom', message: `onnxModel is the ONNX decoder the onnxruntime backend measures; backend ${r.backend} runs none (set backend to onnxruntime, or leave onnxModel out)`, path: ['onnxModel'] })
  if (r.modelPath !== undefined) ctx.addIssue({ code: 'custom', message: 'give onnxModel (a shape the server synthesizes) or modelPath (a file), not both', path: ['onnxModel'] })
}), [['model', 'name'], ['model', 'architecture'], ['hardware', 'name']])

/**
 * A run that measured Tier 3 registry kernels says, when read, which of them have been deprecated
 * since (they are out of future selection; its numbers stay what was measured).
 */
async function withRegistryNotes(run: Run, deps: AppDeps): Promise<Run & { registryNotes?: string[] }> {
  if (run.target.options?.registryKernels !== true) return run
  const selected = (await deps.store.runs.combos(run.id)).flatMap((c) => (c.kernels ?? []).filter((k) => k.selection === 'selected'))
  if (selected.length === 0) return run
  // A kernel that was measured but slower than the tuned one never produced a number of this run.
  const used = new Set(selected.filter((k) => k.used).map((k) => k.id))
  const measuredOnly = new Set(selected.map((k) => k.id).filter((id) => !used.has(id)))
  const entries = await deps.store.registry.list(run.tenant)
  const notes = [...usageNotes([...used], entries), ...usageNotes([...measuredOnly], entries, 'measured (but not used) by this result')]
  return notes.length ? { ...run, registryNotes: notes } : run
}

/**
 * A finished run's one verdict: the stored one, or for a summary stored before runs kept one, the
 * same function over the stored summary and the gate's verdict on its winner.
 */
async function withVerdict(run: Run, deps: AppDeps): Promise<Run> {
  const summary = run.summary as (VerdictInput & { verdict?: unknown }) | null
  if (!summary || summary.verdict !== undefined || !summary.counts) return run
  const winner = summary.winner ? (await deps.store.runs.combos(run.id)).find((c) => c.index === summary.winner!.index) : undefined
  return { ...run, summary: { ...summary, verdict: runVerdict(summary, { winnerGate: winner?.gate ?? null }) } as unknown as Run['summary'] }
}

/**
 * Marks the running rows whose measuring process (a sweep holds its run with a heartbeat) has been
 * silent for longer than the owner lease: it died, and the run waits for `kerneltune run resume`.
 * Runs the server executes have no holder and are never marked.
 */
async function withInterrupted<R extends { id: string; status: string }>(store: Store, rows: R[]): Promise<(R & { interrupted?: boolean })[]> {
  return Promise.all(rows.map(async (r) => {
    if (r.status !== 'running') return r
    const owner = await store.runs.owner(r.id)
    return owner && Date.now() - Date.parse(owner.heartbeatAt) > RUN_OWNER_LEASE_MS ? { ...r, interrupted: true } : r
  }))
}

/**
 * What a run's backend declares about its numbers, for list rows (which carry no summary): a
 * prediction (`simulated`) or a proxy of the engine/device. Null for a backend this server does
 * not have, whose declaration it cannot know.
 */
export function measuredBy(registry: Registry, backend: string): { simulated: boolean; proxy: MeasurementProxy | null } | null {
  const b = registry.find('measurement-backend', backend)
  return b ? { simulated: b.simulated, proxy: b.proxy && (b.proxy.engine || b.proxy.device) ? b.proxy : null } : null
}

export const runRoutes: Route[] = [
  route({ method: 'post', path: '/runs', summary: 'Create a Tier 1 run and queue it (a modelPath must name a GGUF under a --model-dir of the server; onnxModel, with backend onnxruntime, names a llama shape the server synthesizes as an ONNX decoder and measures, its shape replacing model)', role: 'operator', body: RunBody, status: 202, response: RunResponse }, async ({ c, auth, body: { onnxModel, ...body }, deps }) => {
    // A model path from the network must name a GGUF inside a directory the operator allowed, and
    // the run keeps its real path (model-paths.ts); the embedded CLI, in-process, names its own files.
    // A synthesized decoder is the server's own file, in its cache folder (onnx-models.node.ts).
    const request = onnxModel
      ? { ...body, modelPath: await deps.onnxModels.path(onnxModel), model: onnxModelOf(onnxModel).spec }
      : body.modelPath && !inProcessAuth(c.env) ? { ...body, modelPath: await deps.modelPaths.resolve(body.modelPath) } : body
    await deps.queue.admit?.(request)
    const run = await createRun(deps.store, request, { catalog: deps.catalog, registry: deps.registry, tenant: auth.tenant })
    deps.queue.enqueue('run', run.id)
    return run
  }),
  route({ method: 'get', path: '/runs', summary: 'List runs (filters, pagination)', role: 'viewer', query: ListQuery, response: RunListResponse }, async ({ auth, query, deps }) => {
    const { view, ...filters } = query
    // brief rows (what a list page shows, about 0.4 KB each) come straight from the store's slim
    // projection; the full rows stay the default for clients that read specs or summaries (CLI).
    if (view === 'brief') {
      // A list that shows a run's hardware must also say when nothing ran on it (issue 23 item 13).
      const { items, total } = await deps.store.runs.listBrief(auth.tenant, filters)
      return { items: await withInterrupted(deps.store, items.map((r) => ({ ...r, measuredBy: measuredBy(deps.registry, r.backend) }))), total, limit: query.limit, offset: query.offset }
    }
    const { items, total } = await deps.store.runs.list(auth.tenant, filters)
    return { items: await withInterrupted(deps.store, items), total, limit: query.limit, offset: query.offset }
  }),
  route({ method: 'get', path: '/runs/:id', summary: 'Run detail and summary (with registryNotes when a registry kernel it measured is deprecated now, and the roofline prediction of its model on its hardware)', role: 'viewer', params: IdParams, response: RunDetailResponse }, async ({ auth, params, deps }) => {
    const run = await withRegistryNotes(await withVerdict(await deps.store.runs.require(auth.tenant, params.id), deps), deps)
    return { ...run, roofline: runRoofline(run) }
  }),
  route({ method: 'get', path: '/runs/:id/combos', summary: 'Enumerated combinations with per-combination metrics (each labelled with the proxy that measured it, if any)', role: 'viewer', params: IdParams, response: RunCombosResponse }, async ({ auth, params, deps }) => {
    const run = await deps.store.runs.require(auth.tenant, params.id)
    // Every number says how it was measured: the summary's label, or (still running) the backend's declaration.
    const summary = run.summary as { proxy?: ProxyLabel | null; devices?: string[] } | null
    const proxy = summary?.proxy !== undefined ? summary.proxy : proxyLabel(run, deps.registry.find('measurement-backend', run.backend)?.proxy, summary?.devices ?? [])
    return { items: (await deps.store.runs.combos(params.id)).map((c) => ({ ...c, proxy })) }
  }),
  route({ method: 'get', path: '/runs/:id/events', summary: 'Server-Sent Events: current state, then progress until the run ends', role: 'viewer', params: IdParams, sse: true }, async ({ c, auth, params, deps }) => {
    const run = await deps.store.runs.require(auth.tenant, params.id)
    const finish = async (r: Run, send: SendEvent) => (await send({ type: 'run.finished', runId: r.id, status: r.status, summary: r.summary, error: r.error }), true)
    return followSse(c, deps.bus, run.id, {
      finalType: 'run.finished',
      load: () => deps.store.runs.require(auth.tenant, run.id),
      ended: async (now, send) => TERMINAL.includes(now.status) && finish(now, send),
      // A run that ended without its final event here (on another worker, or in a crash).
      async quiet(send) {
        const s = await deps.store.runs.require(auth.tenant, run.id)
        return TERMINAL.includes(s.status) && !deps.queue.has(run.id) && finish(s, send)
      },
    })
  }),
  route({ method: 'post', path: '/runs/:id/cancel', summary: 'Cancel a queued or running run', role: 'operator', params: IdParams, status: 202, response: CancelResponse }, async ({ auth, params, deps }) => {
    const run = await deps.store.runs.require(auth.tenant, params.id)
    if (TERMINAL.includes(run.status)) return { id: run.id, status: run.status, cancelled: false }
    const wasRunning = deps.queue.cancel(run.id)
    if (!wasRunning || run.status === 'queued') {
      await deps.store.runs.finish(run.id, 'cancelled', run.summary, new Map(), 'cancelled by request')
    }
    return { id: run.id, status: 'cancelled', cancelled: true }
  }),
  route({ method: 'post', path: '/runs/:id/apply', summary: 'Translate the winner for the run\'s engine (flags, env, files); optionally set it on a deployment', role: 'operator', params: IdParams, body: ApplyBody, response: ApplyResponse }, async ({ auth, params, body, deps }) =>
    applyRun(deps.store, deps.registry, auth.tenant, params.id, body ?? {})),
  route({ method: 'delete', path: '/runs/:id', summary: 'Soft-delete a run (admin)', role: 'admin', params: IdParams }, async ({ auth, params, deps }) => {
    await deps.store.runs.softDelete(auth.tenant, params.id)
    return { id: params.id, deleted: true }
  }),
]
