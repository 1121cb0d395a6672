/** Registry, catalog preview, deployments and cache endpoints (tokens: tokens.ts). */
import { boundedJsonRecord, HardwareSpecSchema, KerneltuneError, nameSchema, RegistryStatusSchema, TenantNameSchema, textSchema, type Combo } from '@kerneltune/core'
import { ENUMERATION_MODES } from '@kerneltune/catalog'
import { z } from 'zod'
import { Id, IdParams, requireTenant, route, type Route } from '../http.ts'
import { CatalogPreviewResponse, CurrentComboResponse, DeploymentListResponse, DeploymentResponse, DriftResponse, GatewayStateResponse, RegistryAuditResponse, RegistryEntryResponse, RegistryListResponse } from '../responses.ts'

// Tenants are normalised (ACME is acme) and names refused with control characters or outer
// whitespace: the rules live in core (schemas/names.ts) so that every name field shares them.
const TenantName = TenantNameSchema
const Name = nameSchema(200)
const ShortName = nameSchema(100)

const FlushBody = z.union([z.object({ engine: ShortName.optional(), tenant: TenantName.optional(), allTenants: z.literal(true).optional() }).strict(), z.undefined()])

// Free text (a source, a reason) keeps its lines and tabs but nothing that hides text from the
// reviewer or the audit log (core's textSchema; mount() checks every other string of a body alike).
const ReasonBody = z.union([z.object({ reason: textSchema(2000).min(1).optional() }).strict(), z.undefined()])

const SubmitBody = z.object({
  name: Name,
  kernelFamily: Name,
  provider: Name,
  source: textSchema(1_000_000),
  metadata: boundedJsonRecord({ maxDepth: 16, maxBytes: 64 * 1024 }).optional(),
}).strict()

/** The hardware spec travels as JSON in the query string (GET has no body). */
const HardwareQuery = z.string().max(10_000).transform((s, ctx) => {
  try {
    return JSON.parse(s) as unknown
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a JSON hardware spec' })
    return z.NEVER
  }
}).pipe(HardwareSpecSchema)

const PreviewQuery = z.object({ engine: z.string().min(1).max(100), hardware: HardwareQuery, mode: z.enum(ENUMERATION_MODES).default('quick') }).strict()

export const otherRoutes: Route[] = [
  route({ method: 'get', path: '/registry', summary: 'List registered kernels', role: 'viewer', query: z.object({ status: RegistryStatusSchema.optional() }).strict(), response: RegistryListResponse }, async ({ auth, query, deps }) =>
    ({ items: await deps.store.registry.list(auth.tenant, query.status) })),
  route({ method: 'get', path: '/registry/:id/audit', summary: 'A registered kernel\'s audit trail (submit, approve, deprecate: who, when, why)', role: 'viewer', params: IdParams, response: RegistryAuditResponse }, async ({ auth, params, deps }) => {
    // The entry must belong to the caller's tenant; another tenant's id reads as unknown.
    if (!(await deps.store.registry.list(auth.tenant)).some((e) => e.id === params.id)) throw new KerneltuneError('NOT_FOUND', `no registry entry ${params.id} in this tenant; list them with GET /registry`)
    return { items: await deps.store.registry.events(params.id) }
  }),
  route({ method: 'post', path: '/registry', summary: 'Submit a kernel (admin)', role: 'admin', body: SubmitBody, status: 201, response: RegistryEntryResponse }, async ({ auth, body, deps }) =>
    deps.store.registry.submit({ tenant: auth.tenant, actor: auth.tokenId, ...body })),
  route({ method: 'post', path: '/registry/:id/approve', summary: 'Approve a proposed kernel (not by its submitter, except the superadmin)', role: 'approver', params: IdParams, body: ReasonBody, response: RegistryEntryResponse }, async ({ auth, params, body, deps }) =>
    deps.store.registry.approve(auth.tenant, params.id, auth.tokenId, body?.reason ?? null, { allowSelf: auth.role === 'superadmin' })),
  route({ method: 'post', path: '/registry/:id/deprecate', summary: 'Flag a kernel as unsafe', role: 'approver', params: IdParams, body: ReasonBody, response: RegistryEntryResponse }, async ({ auth, params, body, deps }) =>
    deps.store.registry.deprecate(auth.tenant, params.id, auth.tokenId, body?.reason ?? null)),
  route({ method: 'get', path: '/catalog/preview', summary: 'Combinations a run would sweep, per mode, with pruning and engine refusals', role: 'viewer', query: PreviewQuery, response: CatalogPreviewResponse }, async ({ query, deps }) => {
    const engine = deps.registry.find('engine', query.engine)
    if (!engine) throw new KerneltuneError('INVALID_INPUT', `unknown engine ${query.engine}`, { details: { errors: [`query.engine: unknown engine; engines: ${deps.registry.list('engine').map((e) => e.name).join(', ')}`] } })
    const refuse = async (combo: Combo) => {
      const t = await engine.translate(combo)
      return t.ok ? undefined : { dimension: t.dimension, value: t.value, reason: t.reason }
    }
    const p = await deps.catalog.previewAsync({ hardware: query.hardware, engine: query.engine }, { mode: query.mode, refuse })
    // Counts and rules in full; the combo lists are capped so that a preview stays small.
    return { ...p, legal: p.legal.slice(0, 200), pruned: p.pruned.slice(0, 200), refused: p.refused.slice(0, 200) }
  }),
  route({ method: 'post', path: '/deployments', summary: 'Register a deployment', role: 'operator', body: z.object({ name: Name, engine: ShortName, engineVersion: ShortName }).strict(), status: 201, response: DeploymentResponse }, async ({ auth, body, deps }) =>
    deps.store.deployments.create({ tenant: auth.tenant, ...body })),
  route({ method: 'get', path: '/deployments-recent', summary: 'Deployments with L1 activity in the last N days (default 30)', role: 'viewer', query: z.object({ days: z.coerce.number().int().min(1).max(365).default(30) }).strict(), response: DeploymentListResponse }, async ({ auth, query, deps }) =>
    ({ items: await deps.store.deployments.recent(auth.tenant, new Date(Date.now() - query.days * 86_400_000).toISOString()) })),
  route({ method: 'get', path: '/deployments/:id/current-combo', summary: 'The combination a deployment runs', role: 'viewer', params: IdParams, response: CurrentComboResponse }, async ({ auth, params, deps }) => {
    const d = await deps.store.deployments.require(auth.tenant, params.id)
    return { deploymentId: d.id, combo: d.currentCombo, runId: d.runId, updatedAt: d.updatedAt }
  }),
  route({ method: 'get', path: '/deployments/:id/drift', summary: 'Drift from the latest calibration run (minor 5-15%, significant >15%)', role: 'viewer', params: IdParams, response: DriftResponse }, async ({ auth, params, deps }) =>
    deps.store.deployments.drift(auth.tenant, params.id)),
  route({ method: 'get', path: '/deployments/:id/gateway', summary: 'A deployment served through kerneltune gateway: per-arm statistics and the latest routing decisions', role: 'viewer', params: IdParams, query: z.object({ decisions: z.coerce.number().int().min(0).max(1000).default(50) }).strict(), response: GatewayStateResponse }, async ({ auth, params, query, deps }) => {
    const g = await deps.store.deployments.gateway(auth.tenant, params.id, query.decisions)
    return g ? { deploymentId: g.deploymentId, gateway: { ...g.gateway }, arms: g.arms.map((a) => ({ ...a, stats: { ...a.stats } })), decisions: [...g.decisions], decisionCount: g.decisionCount } : { deploymentId: params.id, gateway: null, arms: [], decisions: [], decisionCount: 0 }
  }),
  route({ method: 'post', path: '/deployments/:id/validate', summary: 'Pre-submission check: the deployment exists and this tenant may use it', role: 'viewer', params: IdParams }, async ({ auth, params, deps }) => {
    const d = await deps.store.deployments.require(auth.tenant, params.id)
    return { valid: true, deploymentId: d.id, engine: d.engine, engineVersion: d.engineVersion }
  }),
  route({ method: 'post', path: '/cache/flush', summary: 'Flush the caller\'s tenant\'s result-cache entries, or one engine\'s (admin); another tenant\'s or all of them (superadmin)', role: 'admin', body: FlushBody }, async ({ auth, body, deps }) => {
    if (body?.allTenants) {
      if (auth.role !== 'superadmin') throw new KerneltuneError('FORBIDDEN', `flushing every tenant's cache needs the superadmin token (KERNELTUNE_ADMIN_TOKEN); this ${auth.role} token may flush its own tenant's (${auth.tenant}) entries: leave out allTenants`)
      return { flushed: await deps.store.cache.flush({ allTenants: true, ...(body.engine ? { engine: body.engine } : {}) }), tenant: null }
    }
    const tenant = requireTenant(auth, body?.tenant ?? auth.tenant, 'flushing the cache')
    return { flushed: await deps.store.cache.flush({ tenant, ...(body?.engine ? { engine: body.engine } : {}) }), tenant }
  }),
]

export { Id }
