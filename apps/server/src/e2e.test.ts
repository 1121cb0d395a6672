import { describe, it, expect } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { openStore } from '@kerneltune/store'
import { findDeno } from '@kerneltune/backends/node'
import { serve } from './node.ts'
import { HARDWARE, MODEL } from './test-helpers.ts'

const ADMIN = 'kt_e2e_admin_token_0123456789abcdef'
const api = (url: string) => async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}/api/v1/kernels${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) })
  return { status: res.status, body: (await res.json()) as any }
}

const deno = findDeno()

describe.skipIf(requireOrSkip(Boolean(deno), 'Deno for the end-to-end test on real kernels: deno not found (pnpm install)'))('end to end over loopback (real kernels through Deno + WebGPU)', () => {
  it('should create a run that measures real kernels, follow it over SSE, apply it and read the metrics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-e2e-'))
    const s = await serve({ port: 0, databaseUrl: join(dir, 'kt.db'), env: { KERNELTUNE_ADMIN_TOKEN: ADMIN }, log: () => {} })
    try {
      const call = api(s.url)
      const created = await call('POST', '/runs', {
        model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'gpu-kernels', repetitions: 5, qualityGate: 'manual',
        restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas', 'cutlass'], activation_dtype: ['bf16', 'fp8_e4m3'], fusion_strategy: ['none'], cuda_graph: ['per-shape'] },
      })
      expect(created.status).toBe(202)
      const id = created.body.id as string
      const sse = await fetch(`${s.url}/api/v1/kernels/runs/${id}/events`, { headers: { authorization: `Bearer ${ADMIN}` } })
      const text = await sse.text()
      expect(text).toMatch(/event: combo.measured/)
      expect(text).toMatch(/event: run.finished/)
      const run = (await call('GET', `/runs/${id}`)).body
      expect(run.status).toBe('succeeded')
      const combos = (await call('GET', `/runs/${id}/combos`)).body.items as any[]
      expect(combos.length).toBe(run.progress.total)
      expect(combos.length).toBeGreaterThanOrEqual(2)
      for (const c of combos) {
        expect(c.simulated).toBe(false)
        expect(c.metrics.latencyP50Ms).toBeGreaterThan(0)
        expect(Object.keys(c.metrics.breakdown)).toContain('gate')
      }
      expect(run.summary.devices.join(' ')).toMatch(/WebGPU/)
      const dep = (await call('POST', '/deployments', { name: 'e2e', engine: 'vllm', engineVersion: '0.6.0' })).body
      // The manual gate decides nothing: applying its winner is a person's call, made with force.
      const applied = await call('POST', `/runs/${id}/apply`, { deploymentId: dep.id, force: true })
      expect(applied.status).toBe(200)
      expect(applied.body.translation.argv.length).toBeGreaterThan(0)
      expect((await call('GET', `/deployments/${dep.id}/current-combo`)).body.combo).toEqual(applied.body.combo)
      const metrics = await (await fetch(`${s.url}/metrics`)).text()
      expect(metrics).toMatch(/kerneltune_l1_runs_total\{mode="quick",status="succeeded"\} 1/)
      expect(metrics).toMatch(new RegExp(`kerneltune_l1_combo_evaluations_total ${combos.length}\\b`))
    } finally {
      await s.close()
    }
  }, 120_000)
})

function startChild(dbUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kerneltune/source', join(import.meta.dirname, 'crash-server.fixture.ts')], {
    env: { ...process.env, KERNELTUNE_DATABASE_URL: dbUrl, KERNELTUNE_ADMIN_TOKEN: ADMIN }, stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (l) => resolve({ child, url: (JSON.parse(l) as { url: string }).url }))
    child.once('exit', (code) => reject(new Error(`server exited early (${code})`)))
  })
}

describe('crash and resume', () => {
  // Random search keeps no model; Bayesian optimisation ('bo') must also bring back its observations.
  it.each(['random', 'bo'])('should resume a %s tune session after SIGKILL with every trial exactly once', async (strategy) => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-crash-'))
    const db = join(dir, 'kt.db')
    const budget = 12
    let { child, url } = await startChild(db)
    try {
      let call = api(url)
      const run = await call('POST', '/runs', {
        model: MODEL, hardware: HARDWARE, engine: 'vllm', backend: 'analytical', repetitions: 2, workload: { batch: 16, contextLength: 8192 },
        restrict: { attention_backend: ['flash_attn_v2'], kv_layout: ['paged'], matmul_path: ['cublas', 'cutlass'], fusion_strategy: ['none', 'aggressive'], cuda_graph: ['per-shape'] },
      })
      for (let i = 0; i < 200 && (await call('GET', `/runs/${run.body.id}`)).body.status !== 'succeeded'; i++) await new Promise((r) => setTimeout(r, 100))
      // Keep three dimensions whatever the evidence, so the space outlasts the budget.
      const session = (await call('POST', '/tune', { runId: run.body.id, budget: { trials: budget }, strategy, keep: ['matmul_path', 'fusion_strategy', 'activation_dtype'], repetitions: 3 })).body
      for (let i = 0; i < 300 && (await call('GET', `/tune/${session.id}`)).body.trialsDone < 3; i++) await new Promise((r) => setTimeout(r, 50))
      child.kill('SIGKILL')
      await new Promise((r) => child.once('exit', r))
      ;({ child, url } = await startChild(db))
      call = api(url)
      const paused = (await call('GET', `/tune/${session.id}`)).body
      expect(paused.status).toBe('paused')
      expect(paused.trialsDone).toBeGreaterThanOrEqual(3)
      expect(paused.trialsDone).toBeLessThan(budget)
      expect((await call('POST', `/tune/${session.id}/resume`)).status).toBe(202)
      let done = paused
      for (let i = 0; i < 400 && done.status !== 'completed'; i++) {
        await new Promise((r) => setTimeout(r, 50))
        done = (await call('GET', `/tune/${session.id}`)).body
      }
      expect(done.status).toBe('completed')
      expect(done.trials.map((t: { index: number }) => t.index)).toEqual([...Array(budget).keys()])
      const configs = done.trials.map((t: { config: unknown }) => JSON.stringify(t.config))
      expect(new Set(configs).size).toBe(budget)
    } finally {
      child.kill('SIGKILL')
    }
    const store = await openStore(db)
    expect((await store.tune.list(null))[0]!.trialsDone).toBe(budget)
    await store.close()
  }, 120_000)
})
