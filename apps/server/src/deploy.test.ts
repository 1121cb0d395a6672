/**
 * deploy/grafana and deploy/prometheus against the server that really runs: every metric a
 * dashboard panel or an alert names must be one that a live server's /metrics declares, and the
 * alert rules must pass promtool (check and unit tests). Under CI=true a missing promtool fails.
 */
import { describe, it, expect } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openStore } from '@kerneltune/store'
import { serve } from './node.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..')
const DASHBOARD = join(ROOT, 'deploy/grafana/dashboards/kerneltune-l1.json')
const ALERTS = join(ROOT, 'deploy/prometheus/alerts.yml')
const ALERT_TESTS = join(ROOT, 'deploy/prometheus/alerts.test.yml')
const RUNBOOK = join(ROOT, 'docs/runbook.md')
// Series Prometheus itself writes for every target; not the server's to export.
const PROMETHEUS_SERIES = new Set(['up'])
// PromQL words that can precede `{` or `(` and are not metric names.
const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'offset', 'bool'])

interface Dashboard { uid: string; panels: { title: string; targets: { expr: string }[] }[]; templating: { list: { name: string; definition?: string }[] } }

function hasPromtool(): boolean {
  return spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0
}
// Under CI=true a missing promtool is a failing test (Debian's prometheus package ships it).
const REDIS = process.env.KERNELTUNE_TEST_REDIS_URL
const redisMissing = requireOrSkip(Boolean(REDIS), 'Redis for the worker metrics of the dashboard: KERNELTUNE_TEST_REDIS_URL is unset (bash tooling/scripts/start-test-redis.sh starts one and prints it)', { runtimes: ['node'] })
// Exported only by a server that dispatches to workers through Redis (distributed/redis-queue.ts).
const WORKER_METRICS = new Set(['kerneltune_l1_queue_depth', 'kerneltune_l1_queue_stalled_jobs_total', 'kerneltune_l1_active_workers'])
const promtoolMissing = requireOrSkip(hasPromtool(), 'promtool: not installed (apt-get install -y prometheus)')

/** Metric names in a PromQL expression: what is left once strings, label matchers, ranges,
 * grouping clauses, functions, keywords, numbers and durations are taken out. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
  const names = new Set<string>()
  for (const m of bare.matchAll(/(?<![\w:$.])([a-zA-Z_:][\w:]*)(?![\w:]|\s*\()/g)) {
    if (!PROMQL_WORDS.has(m[1]!)) names.add(m[1]!)
  }
  return [...names]
}

/** Names /metrics declares (`# TYPE name kind`), with the series names a histogram adds. */
function exported(text: string): Set<string> {
  const out = new Set<string>()
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    out.add(m[1]!)
    if (m[2] === 'histogram' || m[2] === 'summary') for (const s of ['_bucket', '_sum', '_count']) out.add(m[1]! + s)
  }
  return out
}

function alertExprs(): { alert: string; expr: string }[] {
  // The rules file is plain YAML of a fixed shape: read `- alert:` names and their `expr:` blocks
  // without a YAML dependency (promtool below parses it for real).
  const lines = readFileSync(ALERTS, 'utf8').split('\n')
  const out: { alert: string; expr: string }[] = []
  for (let i = 0; i < lines.length; i++) {
    const a = /^\s*- alert: (\S+)/.exec(lines[i]!)
    if (a) out.push({ alert: a[1]!, expr: '' })
    const e = /^(\s*)expr: ?(.*)$/.exec(lines[i]!)
    if (e && out.length) {
      if (e[2] && e[2] !== '|') out.at(-1)!.expr = e[2]
      else {
        const block: string[] = []
        while (i + 1 < lines.length && (lines[i + 1]!.trim() === '' || lines[i + 1]!.search(/\S/) > e[1]!.length)) block.push(lines[++i]!)
        out.at(-1)!.expr = block.join('\n')
      }
    }
  }
  return out
}

/** Starts a real server (in-memory store) on a free port and reads the names its /metrics declares. */
async function liveMetricNames(options: { redisUrl?: string; redisPrefix?: string }): Promise<Set<string>> {
  const store = await openStore(':memory:')
  const server = await serve({ port: 0, store, env: { KERNELTUNE_ADMIN_TOKEN: 'deploy-test-token-0123456789' }, log: () => {}, ...options })
  try {
    const res = await fetch(`${server.url}/metrics`)
    expect(res.status).toBe(200)
    return exported(await res.text())
  } finally {
    await server.close()
    await store.close()
  }
}

/** Every metric a dashboard panel, dashboard variable or alert names, with where. */
function usedMetrics(): { where: string; name: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard
  const out: { where: string; name: string }[] = []
  const add = (where: string, expr: string) => {
    const names = metricNames(expr)
    if (names.length === 0) out.push({ where, name: '(none)' })
    for (const name of names) out.push({ where, name })
  }
  for (const p of dashboard.panels) for (const t of p.targets) add(`panel "${p.title}"`, t.expr)
  for (const v of dashboard.templating.list) if (v.definition) add(`variable ${v.name}`, v.definition.replace(/^label_values\((.*),\s*\w+\)$/, '$1'))
  for (const a of alertExprs()) add(`alert ${a.alert}`, a.expr)
  return out
}

describe('deploy: dashboard and alerts', () => {
  it('should find the metric names of an expression and not its functions or labels', () => {
    expect(metricNames('sum by (status) (rate(kerneltune_l1_runs_total{job=~"$job"}[5m]))')).toEqual(['kerneltune_l1_runs_total'])
    expect(metricNames('up{job="kerneltune"} == 0').sort()).toEqual(['up'])
    expect(metricNames('max by (job) (kerneltune_l1_run_stalled_seconds) > 1800')).toEqual(['kerneltune_l1_run_stalled_seconds'])
  })

  it('should name only metrics a live server exports, in every dashboard panel and alert', async () => {
    const names = await liveMetricNames({})
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard
    expect(dashboard.uid).toBe('kerneltune-l1')
    expect(alertExprs().map((a) => a.alert).sort()).toEqual(['KerneltuneApiErrorRateHigh', 'KerneltuneCacheHitRateCollapsed', 'KerneltuneLandingTtfsSlow', 'KerneltuneMetricsDown', 'KerneltuneNoWorkerHeartbeat', 'KerneltuneRunsStuckRunning'])
    const used = usedMetrics()
    // Worker metrics exist only on a server with Redis: the next test checks those.
    expect(used.filter((u) => !WORKER_METRICS.has(u.name) && !names.has(u.name) && !PROMETHEUS_SERIES.has(u.name)).map((u) => `${u.where}: ${u.name}`)).toEqual([])
  })

  it.skipIf(redisMissing)('should name only worker metrics that a live server started with Redis exports', async () => {
    const names = await liveMetricNames({ redisUrl: REDIS!, redisPrefix: `kt-deploy-test-${process.pid}` })
    const workerUsed = usedMetrics().filter((u) => WORKER_METRICS.has(u.name))
    expect(workerUsed.length).toBeGreaterThan(0)
    expect(workerUsed.filter((u) => !names.has(u.name)).map((u) => `${u.where}: ${u.name}`)).toEqual([])
  })

  it('should have a panel for each thing the issue asks operators to watch', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n')
    for (const metric of ['kerneltune_l1_runs_total', 'kerneltune_l1_cache_hits_total', 'kerneltune_l1_quality_gate_rejections_total', 'kerneltune_l1_tune_budget_used_ratio',
      'kerneltune_l1_registry_entries', 'kerneltune_l1_landing_ttfs_seconds_bucket', 'kerneltune_l1_job_queue_jobs', 'kerneltune_l1_run_stalled_seconds',
      'kerneltune_l1_queue_depth', 'kerneltune_l1_queue_stalled_jobs_total', 'kerneltune_l1_active_workers']) {
      expect(exprs, metric).toContain(metric)
    }
  })

  it('should explain every alert in the runbook', () => {
    const runbook = readFileSync(RUNBOOK, 'utf8')
    for (const { alert } of alertExprs()) expect(runbook, alert).toMatch(new RegExp(`^## ${alert}$`, 'm'))
  })

  it.skipIf(promtoolMissing)('should pass promtool check rules and the rule unit tests', () => {
    const check = execFileSync('promtool', ['check', 'rules', ALERTS], { encoding: 'utf8' })
    expect(check).toMatch(/SUCCESS: 6 rules found/)
    const tests = spawnSync('promtool', ['test', 'rules', ALERT_TESTS], { encoding: 'utf8' })
    expect(tests.stdout + tests.stderr).toMatch(/SUCCESS/)
    expect(tests.status).toBe(0)
  })
})
