/**
 * The kit's summary: a short Markdown table of every figure next to its prediction, printed last
 * (a device call returns the end of its output) and written to $OUT/summary.md.
 */
import type { KitContext } from './kit-context.ts'
import type { ModelResult, PhaseFigures } from './kit-models.ts'

const n = (x: number | undefined, d = 1) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d))
const pct = (x: number | undefined) => (x === undefined ? '-' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)}%`)

function cells(p: PhaseFigures | undefined): string[] {
  if (!p) return ['-', '-', '-', '-']
  const iv = p.predicted?.low !== undefined ? `${n(p.predicted.low, 0)}–${n(p.predicted.high, 0)}` : '-'
  return [n(p.measured?.tps), `${n(p.predicted?.tps)}${p.predicted?.capped ? ' (capped)' : ''}`, iv, `${pct(p.error)}${p.insideInterval === false ? ' out' : ''}`]
}

export function renderSummary(ctx: KitContext, models: readonly ModelResult[], extra: readonly string[]): string {
  const d = ctx.device
  const lines = [
    `# kerneltune GPU kit (${ctx.plan.mode})`,
    '',
    `Device: ${d?.gpu ? `${d.gpu.name}, driver ${d.gpu.driver}, ${d.gpu.memoryMiB} MiB, compute ${d.gpu.computeCap}; CUDA ${d.cuda ?? '?'}` : `CPU only: ${d?.cpu.model ?? '?'}`}; ${d?.cpu.cores ?? '?'} logical CPUs.`,
    `llama.cpp ${d?.llamaCpp.tag ?? '?'} (${d?.llamaCpp.commit.slice(0, 12) ?? '?'}), ${d?.llamaCpp.version ?? ''}; kerneltune ${d?.kerneltune.commit ?? '?'}${d?.kerneltune.dirty ? ' (uncommitted changes)' : ''}; Node ${d?.node ?? '?'}.`,
    '',
    `Step 1: measured by llama-bench (pp${ctx.plan.bench.promptTokens} / tg${ctx.plan.bench.genTokens}, ${ctx.plan.bench.reps} reps), predicted by \`kerneltune predict\` (a prediction; 90% interval). Error = (predicted − measured) / measured.`,
    '',
    '| model | decode measured | decode predicted | 90% interval | error | prefill measured | prefill predicted | 90% interval | error |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...models.map((m) => `| ${m.model.id}${m.error ? ' (error)' : ''} | ${[...cells(m.decode), ...cells(m.prefill)].join(' | ')} |`),
    '',
    ...extra,
    '',
    ctx.skipped.length ? '## Skipped' : 'Nothing was skipped.',
    ...ctx.skipped.map((s) => `- ${s.step}: ${s.what}: ${s.why}`),
  ]
  return `${lines.join('\n')}\n`
}

interface SweepJson { timedOut?: boolean; resultFrom?: 'stdout' | 'out' | null; result?: { winner?: { combo?: Record<string, string> } | null; recommendedArgv?: string[]; verdict?: string; capacity?: unknown; phase?: string; rounds?: number; budget?: { note?: string } } | null; exitCode?: number | null }
interface ServeJson { levels?: { concurrency: number; result?: { outputTokensPerSecond?: number; requestThroughput?: number; ttftMs?: { p50?: number; p99?: number }; tpotMs?: { p50?: number; p99?: number }; goodput?: { requestsPerSecond?: number; met?: number } } | null }[] }

/** The serving steps in a few lines for the summary. */
export function servingLines(sweep: SweepJson | undefined, serve: ServeJson | undefined): string[] {
  const out: string[] = []
  if (sweep) {
    const r = sweep.result
    const stopped = sweep.resultFrom === 'out' ? ` (stopped at the kit's time limit: its result as of its last write, ${r?.phase ?? '?'}, ${r?.rounds ?? 0} rounds)` : ' (stopped at the kit\'s time limit: no result)'
    out.push('Step 2 (serving sweep):', `- exit ${sweep.exitCode}${sweep.timedOut ? stopped : ''}; verdict: ${r?.verdict ?? '-'}`, `- recommended: ${r?.recommendedArgv?.join(' ') ?? '-'}`)
    if (r?.budget?.note) out.push(`- ${r.budget.note}`)
    if (r?.capacity !== undefined) out.push(`- capacity: ${JSON.stringify(r.capacity).slice(0, 300)}`)
  }
  if (serve?.levels?.length) {
    out.push('', 'Step 3 (bench serve, defaults):', '', '| in flight | output tok/s | req/s | goodput req/s (met) | TTFT p50 / p99 ms | TPOT p50 / p99 ms |', '| ---: | ---: | ---: | ---: | ---: | ---: |')
    for (const l of serve.levels) {
      const r = l.result
      out.push(`| ${l.concurrency} | ${n(r?.outputTokensPerSecond)} | ${n(r?.requestThroughput, 2)} | ${n(r?.goodput?.requestsPerSecond, 2)} (${r?.goodput?.met ?? '-'}) | ${n(r?.ttftMs?.p50, 0)} / ${n(r?.ttftMs?.p99, 0)} | ${n(r?.tpotMs?.p50, 1)} / ${n(r?.tpotMs?.p99, 1)} |`)
    }
  }
  return out
}
