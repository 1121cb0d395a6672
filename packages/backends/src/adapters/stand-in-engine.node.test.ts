/**
 * The generic `server` run backend driven by vLLM's serving capability, live, on a machine
 * without vLLM: the `vllm` binary is a small wrapper that runs llama-server, which speaks the same
 * OpenAI-compatible protocol. What is real here: the launch from vLLM's translation and capability
 * (argv, listen arguments, readiness on /health), streaming, usage accounting, the version probe
 * falling back when /version is absent, and a failed start. What is
 * not: vLLM itself (its settings are dropped by the wrapper, its /version and vllm:* metrics do
 * not exist on llama-server). vLLM's own log lines are classified in engines-vllm's unit tests.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isKerneltuneError } from '@kerneltune/core'
import { LLAMACPP_VERSION } from '@kerneltune/engines-llamacpp'
import { BUILD_HINT, findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { vllmEngine } from '@kerneltune/engines-vllm'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serverRunBackend } from './server-run-backend.node.ts'

const found = findLlamaServer(LLAMACPP_VERSION)
const dir = mkdtempSync(join(tmpdir(), 'stand-in-engine-'))
const model = join(dir, 'tiny-q8_0.gguf')
const wrapper = join(dir, 'vllm')
const engines = { list: () => [vllmEngine()] }
const load = { batch: 2, phase: 'decode' as const, promptTokens: 8, generatedTokens: 4, cudaGraphs: false }

/**
 * `vllm serve MODEL [flags] --host H --port P` → `llama-server -m MODEL --host H --port P`: the
 * model and the listen address are vLLM's own argv; every other flag is dropped. STAND_IN_EXTRA
 * adds llama-server flags (a refused start).
 */
const WRAPPER = `#!/bin/sh
[ "$1" = serve ] || { echo "usage: vllm serve MODEL" >&2; exit 2; }
model=$2; shift 2; host=127.0.0.1; port=
while [ $# -gt 0 ]; do
  case "$1" in --host) host=$2; shift ;; --port) port=$2; shift ;; esac
  shift
done
exec "$STAND_IN_LLAMA_SERVER" -m "$model" --host "$host" --port "$port" --threads 1 $STAND_IN_EXTRA
`

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the server run backend with vLLM\'s serving capability', () => {
  it('should say vLLM is not installed, with the install hint, as ENGINE_NOT_INSTALLED', async () => {
    const backend = serverRunBackend({ engines, env: { PATH: dir.replace(/$/, '-nothing-here') } }).modelFile.forModel(model)
    const e = await backend.measure({ engine: 'vllm', combo: {}, repetitions: 1, warmups: 0 }).then(() => undefined, (x: unknown) => x)
    expect(isKerneltuneError(e) && e.code).toBe('ENGINE_NOT_INSTALLED')
    expect((e as Error).message).toMatch(/vllm is not installed here: no vllm on PATH and KERNELTUNE_VLLM is unset\. install it with `pip install vllm==0\.32\.0`/)
    expect(await backend.available!()).toEqual({ ok: true })
  })

  describe.skipIf(requireOrSkip(found !== undefined, `vLLM stand-in: no llama-server binary; ${BUILD_HINT}`, { runtimes: ['node'] }))('live, with llama-server behind a vllm wrapper (not vLLM)', () => {
    beforeAll(async () => {
      process.env.STAND_IN_LLAMA_SERVER = found!.path
      writeFileSync(wrapper, WRAPPER)
      chmodSync(wrapper, 0o755)
      await writeGgufFile(model, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 9 }).file)
    })

    it('should launch vLLM\'s command line, stream under load and account tokens from usage', async () => {
      const backend = serverRunBackend({ engines, binaries: { vllm: wrapper }, requests: 4 }).modelFile.forModel(model)
      const r = await backend.measure({ engine: 'vllm', combo: {}, repetitions: 2, warmups: 1, workload: load })
      expect(r.repetitions).toHaveLength(2)
      for (const rep of r.repetitions) {
        expect(rep.ttftMs).toBeGreaterThan(0)
        expect(rep.serving!.requests.every((q) => q.ok && q.outputTokens === 4)).toBe(true)
      }
      // vLLM's translation, the found binary in argv[0] and vLLM's listen arguments.
      expect(r.notes).toContainEqual(expect.stringMatching(new RegExp(`^server argv: ${wrapper} serve ${model} .*--host 127\\.0\\.0\\.1 --port \\d+$`)))
      expect(r.notes).toContainEqual(expect.stringMatching(/token counts from usage/))
      // No /version on llama-server: the probe falls back to /v1/models owned_by.
      expect(r.notes).toContainEqual('server version: llamacpp')
      // vllm:* names are not on llama-server's /metrics: no server counts are claimed.
      expect(r.notes!.some((n) => n.startsWith('output tokens:'))).toBe(false)
    }, 120_000)

    it('should report a server that refuses to start as a failed start with its own lines', async () => {
      process.env.STAND_IN_EXTRA = '--cache-type-k bogus'
      try {
        const backend = serverRunBackend({ engines, binaries: { vllm: wrapper } }).modelFile.forModel(model)
        const e = await backend.measure({ engine: 'vllm', combo: {}, repetitions: 1, warmups: 0, workload: load }).then(() => undefined, (x: unknown) => x)
        expect(isKerneltuneError(e) && e.code).toBe('MEASUREMENT_FAILED')
        expect((e as Error).message).toMatch(/exited \(code \d+\) before it was ready/)
        expect((e as Error).message).toMatch(/bogus|cache type/i)
        // llama-server's refusal line is not one of vLLM's patterns: no class is claimed for it.
        expect((e as { details?: { logClass?: string } }).details?.logClass).toBeUndefined()
      } finally {
        delete process.env.STAND_IN_EXTRA
      }
    }, 60_000)
  })
})
