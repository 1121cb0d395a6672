import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LLAMACPP_VERSION } from '@kerneltune/engines-llamacpp'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { BUILD_HINT, findLlamaServer, startInstantServer } from '@kerneltune/serving/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runMain } from '../../cli/testing.ts'

const dir = mkdtempSync(join(tmpdir(), 'kt-bench-serve-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const run = (...argv: string[]) => runMain(argv, dir)

/** Pids of processes whose command line names this model file (Linux /proc). */
function serversOn(model: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(model)
      } catch {
        return false
      }
    })
    .map(Number)
}

describe('kerneltune bench serve', () => {
  it('should measure a running server and print the vLLM-style figures, the server and its own rates', async () => {
    const s = await startInstantServer({ tokenDelayMs: 1 })
    try {
      const r = await run('bench', 'serve', '--endpoint', s.baseUrl, '--concurrency', '1,3', '--requests', '6', '--prompt-tokens', '8', '--output-tokens', '4', '--slo-ttft-ms', '10000', '--json')
      expect(r.code).toBe(0)
      const j = JSON.parse(r.out)
      for (const k of ['ttftMs', 'tpotMs', 'itlMs', 'e2eMs']) expect(Object.keys(j[k])).toEqual(expect.arrayContaining(['mean', 'p50', 'p90', 'p99']))
      expect(j).toMatchObject({ ok: true, concurrency: 3, requests: { completed: 6, failed: 0 }, server: { version: 'llama.cpp instant-0', pid: null, launched: false } })
      expect(j.requestThroughput).toBeGreaterThan(0)
      expect(j.outputTokensPerSecond).toBeGreaterThan(0)
      expect(j.serverReported.outputTokens).toBe(24)
      expect(j.goodput.met).toBe(6)
      expect(j.levels.map((l: { concurrency: number }) => l.concurrency)).toEqual([1, 3])
    } finally {
      await s.close()
    }
  })

  it('should refuse flags that cannot work, with exit code 2', async () => {
    expect((await run('bench', 'serve')).code).toBe(2)
    expect((await run('bench', 'serve', '--launch', 'llama-server -m m.gguf')).err).toMatch(/needs a \{port\} placeholder/)
    expect((await run('bench', 'serve', '--endpoint', 'http://x', '--launch', 'x {port}')).code).toBe(2)
    expect((await run('bench', 'serve', '--endpoint', 'http://127.0.0.1:9', '--concurrency', '1,x')).code).toBe(2)
  })
})

// The real llama-server: outside CI a missing binary skips with the reason; under CI=true it fails.
const found = findLlamaServer(LLAMACPP_VERSION)
const skip = !found && process.env.CI !== 'true'
if (skip) console.warn(`kerneltune-skip: bench serve / sweep --backend server on llama-server: no binary; ${BUILD_HINT}`)

describe.skipIf(skip)('kerneltune bench serve and sweep --backend server on llama-server', () => {
  beforeAll(async () => {
    if (!found) throw new Error(`CI=true and no llama-server binary: ${BUILD_HINT}`)
    await writeGgufFile(join(dir, 'tiny.gguf'), synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 5 }).file)
  })

  it('should launch llama-server with the GGUF and measure it under concurrent load', async () => {
    const r = await run('bench', 'serve', '--engine', 'llamacpp', '--gguf', 'tiny.gguf', '--concurrency', '1,2', '--requests', '4', '--prompt-tokens', '16', '--output-tokens', '4', '--combo', '{"threads":"1"}', '--json')
    const j = JSON.parse(r.out)
    expect(j.server.version).toMatch(/^llama\.cpp b\d+-/)
    expect(typeof j.server.pid).toBe('number')
    expect(j.server.argv.join(' ')).toMatch(/llama-server -m .*tiny\.gguf --threads 1 .*--metrics/)
    expect(j.requests.completed).toBeGreaterThan(0)
    expect(j.serverReported.msPerOutputToken.mean).toBeGreaterThan(0)
    expect(j.crossCheck.lines.length).toBeGreaterThan(0)
  }, 300_000)

  it('should run a Tier 1 run with --backend server: each combination launched as llama-server under load', async () => {
    const db = join(dir, 'runs.db')
    const r = await run('run', 'create', '--engine', 'llamacpp', '--backend', 'server', '--gguf', 'tiny.gguf', '--db', db,
      '--restrict', '{"threads":["1"]}', '--reps', '2', '--warmups', '0', '--prompt-tokens', '16', '--gen-tokens', '4', '--json')
    expect(r.code).toBe(0)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ status: 'succeeded', backend: 'server', progress: { done: 1, total: 1 } })
    expect(j.summary.simulated).toBe(false)
  }, 300_000)

  it('should sweep server settings with the interleaved design and an A/A check', async () => {
    // --space replaces dimensions of the quick serving space: 2 arms plus the defaults twice.
    const space = JSON.stringify({ threads: ['auto', '1'], parallel: ['auto'], flash_attn: ['auto'] })
    const db = join(dir, 'sweeps.db')
    const r = await run('sweep', '--gguf', 'tiny.gguf', '--backend', 'server', '--quick', '--space', space, '--rounds', '2', '--warmup', '0', '--concurrency', '2', '--requests', '2', '--prompt-tokens', '16', '--gen-tokens', '4', '--db', db, '--json')
    expect([0, 3]).toContain(r.code)
    const j = JSON.parse(r.out)
    expect(j).toMatchObject({ ok: true, design: 'interleaved', backend: 'server', rounds: 2 })
    // A stored run: run show has both rounds of every combination and the design's A/A check.
    const show = JSON.parse((await run('run', 'show', j.runId, '--db', db, '--json')).out)
    expect(show.run).toMatchObject({ id: j.runId, backend: 'server', status: 'succeeded', summary: { experiment: { design: 'interleaved', rounds: 2, verdict: j.verdict } } })
    expect(show.combos.map((c: { repetitions: unknown[] }) => c.repetitions.length)).toEqual([2, 2])
    expect(j.combos.map((c: { combo: object }) => c.combo)).toEqual([{ threads: '1', parallel: 'auto', flash_attn: 'auto' }])
    expect(j.order).toHaveLength(2)
    expect(j.aa.resamples).toBeGreaterThan(0)
    // Two rounds: the sign-flip p-value is exact over all 2^2 sign patterns, and --json says so.
    expect(j.combos[0].paired.decodeTps).toMatchObject({ test: 'sign-flip', n: 2, pMethod: 'exact', patterns: 4 })
    expect(j.recommendedArgv[0]).toBe('llama-server')
    // One server per arm (defaults, A/A, the candidate) for both rounds, and none left running.
    expect(j.notes).toContain('llama-server launches: 3 for 3 arms over 2 rounds (0 after a server died, 0 stopped to stay within 3 kept servers)')
    expect(serversOn(join(dir, 'tiny.gguf'))).toEqual([])
  }, 300_000)
})
