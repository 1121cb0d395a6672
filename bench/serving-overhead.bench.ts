/**
 * The load generator's own overhead: the same loads against a local OpenAI-compatible server that
 * answers at once (the instant server, in its own process, streaming every token without delay)
 * and against llama-server with a synthetic 15M Q8_0 llama, in the same run. Against the instant
 * server every millisecond is HTTP, SSE parsing and the client's bookkeeping (plus the instant
 * server's own work), so its TTFT and ITL bound what the tool adds to a real server's figures;
 * the ratio to llama-server's ITL says how much that matters for the smallest model we serve.
 * Every figure comes as mean, median (p50), p99 and max; a level whose mean and median disagree or
 * whose streams stalled is flagged (bench/support/serving-flags.ts) in the JSON and the table, and
 * the ratios are computed from the medians (issue 23 item 8: a stalled run's mean misleads).
 * Writes bench/results/serving-overhead.json, with the load average before and after.
 *
 *   pnpm bench serving-overhead     (REQUESTS=200 to the instant server, LLAMA_REQUESTS=100 to llama-server, per level)
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { LLAMACPP_VERSION } from '@kerneltune/engines-llamacpp'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { runLoad, type LoadResult } from '@kerneltune/serving'
import { findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { launchServer, type LaunchedServer } from '@kerneltune/serving/node'
import { flagRow } from './support/serving-flags.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const REQUESTS = Number(process.env.REQUESTS ?? 200)
// Enough requests per level that a median and a p99 mean something (the 2026-11-23 run had 24).
const LLAMA_REQUESTS = Number(process.env.LLAMA_REQUESTS ?? 100)
const LEVELS = [1, 8]
const WARMUPS = 4
const workload = { kind: 'synthetic', promptTokens: 32, outputTokens: 32 } as const
const TSX = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'loader.mjs')).href
const MAIN = join(HERE, '../packages/serving/src/adapters/instant-server-main.node.ts')

/** What `uptime` says, for the record of how quiet the machine was (the load average alone where it is missing). */
const uptime = () => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim()
  } catch {
    return `load average: ${loadavg().map((x) => x.toFixed(2)).join(', ')}`
  }
}
const spread = (d: LoadResult['metrics']['ttftMs']) => ({ mean: d.mean, p50: d.p50, p99: d.p99, max: d.max })
const summarize = (r: LoadResult) => {
  const figures = { ttftMs: spread(r.metrics.ttftMs), itlMs: spread(r.metrics.itlMs), e2eMs: spread(r.metrics.e2eMs) }
  return {
    concurrency: r.concurrency,
    requests: r.metrics.requests,
    ...figures,
    requestThroughput: r.metrics.requestThroughput,
    outputTokensPerSecond: r.metrics.outputTokensPerSecond,
    flags: flagRow(figures),
  }
}

async function measure(server: LaunchedServer, requests: number) {
  const out = []
  for (const concurrency of LEVELS) out.push(summarize(await runLoad({ baseUrl: server.baseUrl, workload, requests, concurrency, warmups: WARMUPS })))
  await server.stop()
  return out
}

const before = { uptime: uptime(), loadAverage1m: loadavg()[0]!, at: new Date().toISOString() }
const instant = await measure(await launchServer({ argv: [process.execPath, '--import', TSX, '--conditions=@kerneltune/source', MAIN, '--port', '{port}'] }), REQUESTS)
let llama: Awaited<ReturnType<typeof measure>> | undefined
const found = findLlamaServer(LLAMACPP_VERSION)
if (found) {
  const dir = mkdtempSync(join(tmpdir(), 'serving-overhead-'))
  const model = join(dir, 'm15.gguf')
  await writeGgufFile(model, synthLlama({ params: 15e6, quant: 'Q8_0', seed: 1 }).file)
  llama = await measure(await launchServer({ argv: [found.path, '-m', model, '--port', '{port}'] }), LLAMA_REQUESTS)
  rmSync(dir, { recursive: true, force: true })
} else {
  console.error('no llama-server binary: only the instant server is measured (tooling/scripts/build-llama-server.sh builds one)')
}
const after = { uptime: uptime(), loadAverage1m: loadavg()[0]!, at: new Date().toISOString() }
// Medians: a stalled level's mean is the stall's figure, not the server's (issue 23 item 8). The
// means' ratios stay next to them for comparison with older results.
const ratios = llama
  ? LEVELS.map((c, i) => {
      const a = instant[i]!
      const b = llama![i]!
      return {
        concurrency: c,
        instantTtftOverLlamaTtftMedian: a.ttftMs.p50 / b.ttftMs.p50,
        instantItlOverLlamaItlMedian: a.itlMs.p50 / b.itlMs.p50,
        instantTtftOverLlamaTtftMean: a.ttftMs.mean / b.ttftMs.mean,
        instantItlOverLlamaItlMean: a.itlMs.mean / b.itlMs.mean,
        flagged: a.flags.length > 0 || b.flags.length > 0,
      }
    })
  : []
const result = {
  measured: true,
  device: `CPU: ${cpus()[0]?.model.trim()} (${cpus().length} logical cores)`,
  machine: { before, after },
  workload: { ...workload, requestsInstant: REQUESTS, requestsLlama: LLAMA_REQUESTS, warmups: WARMUPS },
  flagRule: 'bench/support/serving-flags.ts: TTFT or E2E |mean - median| / median > 1, or ITL p99 > 5 x the median TTFT (a stall)',
  instant,
  llamaServer: llama ?? null,
  ratios,
  at: after.at,
}
mkdirSync(join(HERE, 'results'), { recursive: true })
writeFileSync(join(HERE, 'results', 'serving-overhead.json'), JSON.stringify(result, null, 2) + '\n')
console.error(`before: ${before.uptime}\nafter:  ${after.uptime}`)
console.table([...instant.map((x) => ({ server: 'instant', ...flat(x) })), ...(llama ?? []).map((x) => ({ server: 'llama-server 15M', ...flat(x) }))])
console.table(ratios.map((r) => ({ c: r.concurrency, 'TTFT ratio (medians)': r.instantTtftOverLlamaTtftMedian.toFixed(3), 'TTFT ratio (means)': r.instantTtftOverLlamaTtftMean.toFixed(3), flagged: r.flagged ? 'yes' : '' })))
for (const [server, rows] of [['instant', instant], ['llama-server 15M', llama ?? []]] as const) {
  for (const x of rows) for (const f of x.flags) console.error(`FLAGGED ${server} at ${x.concurrency} in flight: ${f.reason}`)
}
function flat(x: ReturnType<typeof summarize>) {
  const ms = (d: { mean: number; p50: number }, digits: number) => `${d.mean.toFixed(digits)} / ${d.p50.toFixed(digits)}`
  return { c: x.concurrency, 'TTFT mean / p50 ms': ms(x.ttftMs, 2), 'ITL mean / p50 ms': ms(x.itlMs, 3), 'ITL p99 ms': x.itlMs.p99.toFixed(3), 'E2E mean / p50 ms': ms(x.e2eMs, 1), 'req/s': x.requestThroughput.toFixed(1), 'tok/s': x.outputTokensPerSecond.toFixed(0), flags: x.flags.map((f) => `${f.metric} ${f.rule}`).join(', ') }
}
