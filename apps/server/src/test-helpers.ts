/** Shared setup of the server tests: an in-memory store, the default plugins, tokens per role. */
import { createRegistry, RoleSchema, type AnyPlugin, type Role } from '@kerneltune/core'
import { openStore } from '@kerneltune/store'
import { analyticalBackend } from '@kerneltune/backends'
import { searchStrategies } from '@kerneltune/tuner'
import { vllmEngine } from '@kerneltune/engines-vllm'
import { createApp, type AppOptions } from './app.ts'

export const MODEL = { name: 'tiny', paramsB: 1.1, hiddenDim: 2048, numLayers: 22, numHeads: 32, numKvHeads: 4, intermediateDim: 5632, quant: 'F16' }
export const HARDWARE = { name: 'NVIDIA H100 SXM', vendor: 'nvidia', memBwGbs: 3350, fp16Tflops: 989, computeCapability: '9.0' }
export const SMALL_RUN = {
  model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 3, workload: { batch: 16, contextLength: 8192 },
  restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
}

export const ROLES = RoleSchema.options

/** `clock`: the store's now in ms (token stamps and expiry), for tests of time without waiting. */
export async function testApp(env: Record<string, string> = {}, options: Pick<AppOptions, 'maxBodyBytes' | 'modelPaths'> & { clock?: () => number } = {}, plugins: readonly AnyPlugin[] = []) {
  const { clock, ...appOptions } = options
  const store = await openStore(':memory:', clock ? { clock } : {})
  const registry = createRegistry([vllmEngine(), analyticalBackend(), ...searchStrategies(), ...plugins])
  const built = createApp({ store, registry, env, ...appOptions })
  // Every role in tenant acme (`tokens`) and in tenant globex (`others`); `other` is globex's admin.
  const tokens = {} as Record<Role, string>
  const others = {} as Record<Role, string>
  for (const role of ROLES) {
    tokens[role] = (await store.tokens.create(role, 'acme')).token
    others[role] = (await store.tokens.create(role, 'globex')).token
  }
  const other = others.admin
  const call = async (method: string, path: string, opts: { token?: string | null; body?: unknown; raw?: string } = {}) => {
    const token = opts.token === undefined ? tokens.admin : opts.token
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (token) headers.authorization = `Bearer ${token}`
    const body = method === 'GET' ? undefined : opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body))
    return built.app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) })
  }
  return { ...built, store, registry, tokens, others, other, call }
}

/** Every row of every table, to check that a request changed nothing. */
export async function dumpStore(store: Awaited<ReturnType<typeof openStore>>): Promise<string> {
  const tables = ['kernel_catalog_snapshots', 'kernel_runs', 'kernel_run_combos', 'kernel_tune_sessions', 'kernel_tune_trials', 'l1_kernel_registry', 'l1_kernel_registry_approvals', 'result_cache', 'api_tokens', 'api_token_events', 'deployments', 'calibration_runs']
  const out: Record<string, unknown> = {}
  for (const t of tables) out[t] = await store.driver.query(`SELECT * FROM ${t} ORDER BY 1`)
  // Authenticating notes a token's last use (at most once a minute): a record of the request, not a change it made.
  out.api_tokens = (out.api_tokens as Record<string, unknown>[]).map(({ last_used_at: _, ...r }) => r)
  return JSON.stringify(out)
}
