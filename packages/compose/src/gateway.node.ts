/**
 * A gateway deployment, start to stop: the arms planned (a stored run's candidates read from the
 * store), the engine's serving capability and binary found before anything starts, the deployment
 * created (or reused) in the store, the gateway started, and its decisions and per-arm statistics
 * saved every `saveEveryMs` and once more when it stops. `kerneltune gateway` parses its flags into
 * these options and prints what comes back.
 */
import { basename } from 'node:path'
import type { PolicyInput } from '@kerneltune/bandit'
import { requireServing, type Combo } from '@kerneltune/core'
import { checkToken, DEFAULT_LIMITS, DEFAULT_TIMEOUTS, parseOrigin, resolveArms, uniqueCombos, type ArmRequest, type ArmSnapshot, type GuardOptions, type Timeouts } from '@kerneltune/gateway'
import { DEFAULT_MAX_TOTAL_BODY_BYTES, startGateway, type ArmInfo, type Decision, type GatewayArmSpec, type GatewayStatus } from '@kerneltune/gateway/node'
import { formatSlo, type LatencyObjective } from '@kerneltune/serving'
import { requireServerBinary } from '@kerneltune/serving/node'
import { KerneltuneError } from '@kerneltune/core'
import type { GatewayDecisionRow, Store } from '@kerneltune/store'
import { openStoreAt, servingEngine } from './compose.node.ts'

const MIB = 1 << 20

export interface GatewayDeploymentOptions {
  /** Engine of the launched arms: any built-in engine with a serving capability. */
  readonly engine: string
  /** The model every launched arm serves, and how a person names it when it is missing (`--gguf FILE`). */
  readonly model?: string | undefined
  readonly modelFlag: string
  /** The arms (arm-plan.ts's list), running endpoints, and the stored run recommended and top:N come from. */
  readonly arms?: string | undefined
  readonly endpoints: readonly string[]
  readonly runId?: string | undefined
  readonly fallback?: string | undefined
  readonly objectives: readonly LatencyObjective[]
  readonly policy: PolicyInput
  readonly seed: number
  readonly guard: GuardOptions
  /** Request limits as a person gives them (MiB); checked before anything opens. */
  readonly maxBodyMb?: number | undefined
  readonly maxTotalBodyMb?: number | undefined
  readonly maxTokens?: number | undefined
  readonly timeouts: { readonly [K in keyof Timeouts]?: number | undefined }
  readonly token?: string | undefined
  readonly allowOrigins: readonly string[]
  readonly host: string
  readonly port: number
  readonly readyTimeoutMs: number
  readonly drainTimeoutMs: number
  readonly saveEveryMs: number
  readonly databaseUrl: string
  readonly tenant: string
  /** Record into this existing deployment instead of creating one. */
  readonly deployment?: string | undefined
  readonly name?: string | undefined
  readonly env: Readonly<Record<string, string | undefined>>
  readonly log: (line: string) => void
}

export interface GatewayDeployment {
  readonly deploymentId: string
  readonly url: string
  readonly notes: readonly string[]
  status(): GatewayStatus
  /** Drains, stops every server, saves the final state and closes the store. */
  stop(): Promise<GatewayStatus>
}

/** The status as the JSON output and the store give it: no functions, the server's pid and URL per arm. */
export interface GatewayStatusJson {
  readonly url: string
  readonly policy: string
  readonly fallback: string
  readonly objectives: string
  readonly draining: boolean
  readonly totals: GatewayStatus['totals']
  readonly arms: readonly (ArmSnapshot & Pick<ArmInfo, 'combo' | 'pid' | 'baseUrl' | 'version' | 'launches' | 'argv'>)[]
}

export const gatewayStatusJson = (s: GatewayStatus): GatewayStatusJson => ({
  url: s.url, policy: s.policy, fallback: s.fallback, objectives: formatSlo(s.objectives), draining: s.draining, totals: s.totals,
  arms: s.arms.map(({ server, ...a }) => ({ ...a, combo: server.combo, pid: server.pid, baseUrl: server.baseUrl, version: server.version, launches: server.launches, argv: server.argv })),
})

const decisionRow = (d: Decision, startedAt: number): GatewayDecisionRow => ({
  seq: d.requestId, at: new Date(startedAt + d.atMs).toISOString(), arm: d.arm, reason: d.reason, ok: d.ok, met: d.met, reward: d.reward,
  ttftMs: d.ttftMs ?? null, tpotMs: d.tpotMs ?? null,
})

const invalid = (message: string) => new KerneltuneError('INVALID_INPUT', message)

/** A stored run's measured combinations, best first: the winner, then by throughput. */
async function runCandidates(store: Store, tenant: string, runId: string, engine: string): Promise<Combo[]> {
  const run = await store.runs.get(tenant, runId)
  if (!run) throw invalid(`--run ${runId}: no such run in this store (tenant ${tenant}); list runs with \`kerneltune run list\``)
  if (run.target.engine !== engine) throw invalid(`--run ${runId} tuned ${run.target.engine}; the gateway launches ${engine} arms, so give a ${engine} run (or --engine ${run.target.engine})`)
  const measured = (await store.runs.combos(runId)).filter((c) => c.status === 'measured' && !c.isBaseline && c.metrics?.throughputTps !== undefined)
    .sort((a, b) => b.metrics!.throughputTps! - a.metrics!.throughputTps!)
  const winner = (run.summary as { winner?: { combo?: Combo } | null } | null)?.winner?.combo
  return uniqueCombos([...(winner ? [winner] : []), ...measured.map((c) => c.combo)])
}

/** The arms of a gateway: its list planned, a stored run read through `openStore`. */
export const planGatewayArms = (o: Pick<GatewayDeploymentOptions, 'arms' | 'endpoints' | 'runId' | 'tenant' | 'engine'>, openStore: () => Promise<Store>): Promise<{ arms: ArmRequest[]; notes: string[] }> =>
  resolveArms(o.arms, { runId: o.runId, endpoints: o.endpoints, candidates: async (runId) => runCandidates(await openStore(), o.tenant, runId, o.engine) })

/** Checks the options, plans the arms and starts the gateway; every refusal comes before a store or server opens what it need not. */
export async function startGatewayDeployment(o: GatewayDeploymentOptions): Promise<GatewayDeployment> {
  checkToken(o.token)
  const allowOrigins = o.allowOrigins.map(parseOrigin)
  const maxBodyBytes = Math.round((o.maxBodyMb ?? DEFAULT_LIMITS.maxBodyBytes / MIB) * MIB)
  const maxTotalBodyBytes = Math.round((o.maxTotalBodyMb ?? DEFAULT_MAX_TOTAL_BODY_BYTES / MIB) * MIB)
  if (maxTotalBodyBytes < maxBodyBytes) throw invalid(`--max-total-body-mb (${o.maxTotalBodyMb}) must be at least --max-body-mb (${o.maxBodyMb ?? DEFAULT_LIMITS.maxBodyBytes / MIB})`)
  if ((o.timeouts.headersTimeoutMs ?? DEFAULT_TIMEOUTS.headersTimeoutMs) > (o.timeouts.requestTimeoutMs ?? DEFAULT_TIMEOUTS.requestTimeoutMs)) throw invalid('--headers-timeout must not exceed --request-timeout: the request includes its headers')
  let store: Store | undefined
  const openStore = async () => (store ??= await openStoreAt(o.databaseUrl))
  try {
    const { arms: requested, notes } = await planGatewayArms(o, openStore)
    const needsModel = requested.some((a) => a.kind === 'combo')
    if (needsModel && !o.model) throw invalid(`launched arms need the model: give ${o.modelFlag} (or serve only running servers with NAME=http://… / --endpoint)`)
    const fallback = o.fallback ?? (requested.some((a) => a.id === 'defaults') ? 'defaults' : requested[0]!.id)
    if (!requested.some((a) => a.id === fallback)) throw invalid(`--fallback ${fallback} is not one of the arms (${requested.map((a) => a.id).join(', ')})`)
    const engine = servingEngine(o.engine)
    const serving = requireServing(engine)
    // Not installed: ENGINE_NOT_INSTALLED with the engine's install hint, before anything starts.
    const binary = needsModel ? requireServerBinary(engine.name, serving, o.env).path : undefined
    const spec = (a: ArmRequest): GatewayArmSpec => a.kind === 'endpoint'
      ? { id: a.id, target: { kind: 'endpoint', url: a.url, serving } }
      : { id: a.id, combo: a.combo, target: { kind: 'engine', engine, binary: binary!, model: o.model! } }
    const db = await openStore()
    const deployment = o.deployment
      ? await db.deployments.require(o.tenant, o.deployment)
      : await db.deployments.create({ tenant: o.tenant, name: o.name ?? `gateway ${o.model ? basename(o.model) : requested.map((a) => a.id).join(',')}`, engine: engine.name, engineVersion: engine.defaultVersion })
    const combos = new Map<string, Combo | null>(requested.map((a) => [a.id, a.kind === 'combo' ? a.combo : null]))
    const pending: GatewayDecisionRow[] = []
    const startedAt = Date.now()
    let saving: Promise<void> = Promise.resolve()
    const save = (s: GatewayStatus, state: 'running' | 'stopped') => {
      const rows = pending.splice(0)
      const lead = [...s.arms].sort((a, b) => b.requests - a.requests)[0]
      saving = saving.then(() => db.deployments.recordGateway(o.tenant, deployment.id, {
        gateway: { ...gatewayStatusJson(s), arms: undefined, state, startedAt: new Date(startedAt).toISOString(), model: o.model ?? null },
        arms: s.arms.map(({ server, ...a }) => ({ arm: a.arm, combo: combos.get(a.arm) ?? null, stats: { ...a, pid: server.pid, baseUrl: server.baseUrl, launches: server.launches } })),
        decisions: rows,
        ...(lead && lead.requests > 0 ? { currentCombo: combos.get(lead.arm) ?? null } : {}),
      })).catch((e: unknown) => o.log(`could not save to the store: ${e instanceof Error ? e.message : String(e)}`))
      return saving
    }
    const g = await startGateway({
      arms: requested.map(spec), fallback, objectives: o.objectives, policy: o.policy, seed: o.seed, guard: o.guard,
      limits: { maxBodyBytes, maxTotalBodyBytes, maxTokens: o.maxTokens ?? DEFAULT_LIMITS.maxTokens }, timeouts: o.timeouts, allowOrigins, ...(o.token ? { token: o.token } : {}),
      host: o.host, port: o.port, readyTimeoutMs: o.readyTimeoutMs, drainTimeoutMs: o.drainTimeoutMs,
      onDecision: (d) => void pending.push(decisionRow(d, startedAt)),
      log: o.log,
    })
    const timer = setInterval(() => void save(g.status(), 'running'), o.saveEveryMs)
    timer.unref()
    await save(g.status(), 'running')
    return {
      deploymentId: deployment.id, url: g.url, notes, status: () => g.status(),
      async stop() {
        clearInterval(timer)
        try {
          const final = await g.stop()
          await save(final, 'stopped')
          return final
        } finally {
          await store?.close()
        }
      },
    }
  } catch (e) {
    await store?.close()
    throw e
  }
}
