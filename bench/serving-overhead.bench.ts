/**
 * The load generator's own overhead: the same loads against a local OpenAI-compatible server that
 * answers at once (the instant server, in its own process, streaming every token without delay)
 * and against llama-server with a synthetic 15M Q8_0 llama, in the same run. Against the instant
 * server every millisecond is HTTP, SSE parsing and the client's bookkeeping (plus the instant
 * server's own work), so its TTFT and ITL bound what the tool adds to a real server's figures;
 * the ratio to llama-server's ITL says how much that matters for the smallest model we serve.
 * Writes bench/results/serving-overhead.json.
 *
 *   pnpm bench serving-overhead
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { LLAMACPP_VERSION } from '../packages/engines-llamacpp/src/index.ts'
import { synthLlama } from '../packages/gguf/src/index.ts'
import { writeGgufFile } from '../packages/gguf/src/node.ts'
import { runLoad, type LoadResult } from '../packages/serving/src/index.ts'
import { findLlamaServer, launchServer, type LaunchedServer } from '../packages/serving/src/node.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const REQUESTS = Number(process.env.REQUESTS ?? 200)
const LEVELS = [1, 8]
const workload = { kind: 'synthetic', promptTokens: 32, outputTokens: 32 } as const
const TSX = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'loader.mjs')).href
const MAIN = join(HERE, '../packages/serving/src/adapters/instant-server-main.node.ts')

const summarize = (r: LoadResult) => ({
  concurrency: r.concurrency,
  requests: r.metrics.requests,
  ttftMs: { mean: r.metrics.ttftMs.mean, p50: r.metrics.ttftMs.p50, p99: r.metrics.ttftMs.p99 },
  itlMs: { mean: r.metrics.itlMs.mean, p50: r.metrics.itlMs.p50, p99: r.metrics.itlMs.p99 },
  e2eMs: { mean: r.metrics.e2eMs.mean, p50: r.metrics.e2eMs.p50, p99: r.metrics.e2eMs.p99 },
  requestThroughput: r.metrics.requestThroughput,
  outputTokensPerSecond: r.metrics.outputTokensPerSecond,
})

async function measure(server: LaunchedServer, requests: number) {
  const out = []
  for (const concurrency of LEVELS) out.push(summarize(await runLoad({ baseUrl: server.baseUrl, workload, requests, concurrency, warmups: 4 })))
  await server.stop()
  return out
}

const instant = await measure(await launchServer({ argv: [process.execPath, '--import', TSX, '--conditions=@kerneltune/source', MAIN, '--port', '{port}'] }), REQUESTS)
let llama: Awaited<ReturnType<typeof measure>> | undefined
const found = findLlamaServer(LLAMACPP_VERSION)
if (found) {
  const dir = mkdtempSync(join(tmpdir(), 'serving-overhead-'))
  const model = join(dir, 'm15.gguf')
  await writeGgufFile(model, synthLlama({ params: 15e6, quant: 'Q8_0', seed: 1 }).file)
  llama = await measure(await launchServer({ argv: [found.path, '-m', model, '--port', '{port}'] }), 24)
  rmSync(dir, { recursive: true, force: true })
} else {
  console.error('no llama-server binary: only the instant server is measured (tooling/scripts/build-llama-server.sh builds one)')
}
const ratios = llama
  ? LEVELS.map((c, i) => ({ concurrency: c, instantItlOverLlamaItl: instant[i]!.itlMs.mean / llama![i]!.itlMs.mean, instantTtftOverLlamaTtft: instant[i]!.ttftMs.mean / llama![i]!.ttftMs.mean }))
  : []
const result = {
  measured: true,
  device: `CPU: ${cpus()[0]?.model.trim()} (${cpus().length} logical cores), shared with other jobs`,
  workload: { ...workload, requestsInstant: REQUESTS, requestsLlama: 24, warmups: 4 },
  instant,
  llamaServer: llama ?? null,
  ratios,
  at: new Date().toISOString(),
}
mkdirSync(join(HERE, 'results'), { recursive: true })
writeFileSync(join(HERE, 'results', 'serving-overhead.json'), JSON.stringify(result, null, 2) + '\n')
console.table([...instant.map((x) => ({ server: 'instant', ...flat(x) })), ...(llama ?? []).map((x) => ({ server: 'llama-server 15M', ...flat(x) }))])
console.table(ratios)
function flat(x: ReturnType<typeof summarize>) {
  return { c: x.concurrency, 'TTFT mean ms': x.ttftMs.mean.toFixed(2), 'ITL mean ms': x.itlMs.mean.toFixed(3), 'ITL p99 ms': x.itlMs.p99.toFixed(3), 'E2E mean ms': x.e2eMs.mean.toFixed(1), 'req/s': x.requestThroughput.toFixed(1), 'tok/s': x.outputTokensPerSecond.toFixed(0) }
}
