import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it, expect } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { findDenoBinary } from '@kerneltune/kernel-lab/node'
import { findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { launchServer } from '@kerneltune/serving/node'
import { runMain } from '../cli/testing.ts'

const llama = findLlamaServer()
const ready = Boolean(llama && findDenoBinary())

describe.skipIf(requireOrSkip(ready, 'llama-server and Deno: build llama-server with bash tooling/scripts/build-llama-server.sh (or set KERNELTUNE_LLAMA_SERVER) and install Deno (pnpm install)'))('kerneltune generate --provider llm', () => {
  it('should ask the real llama-server on a synthetic model, and the sandbox rejects its nonsense', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kt-llm-'))
    const synth = await runMain(['model', 'synth', '--params', '1M', '--vocab-size', '300', '--context-length', '8192', '--quant', 'Q8_0', '--out', 'm.gguf', '--json'], dir)
    expect(synth.code).toBe(0)
    const server = await launchServer({ argv: [llama!.path, '-m', join(dir, 'm.gguf'), '--host', '{host}', '--port', '{port}', '-c', '8192', '-t', '1'], readyTimeoutMs: 120_000 })
    try {
      const r = await runMain(['generate', '--provider', 'llm', '--endpoint', server.baseUrl, '--kernel', 'gemv', '--format', 'q4_0', '--count', '1', '--n', '64', '--k', '256', '--json', '--db', join(dir, 'k.db')], dir)
      expect([r.code, r.err]).toEqual([3, ""])
      const doc = JSON.parse(r.out) as { candidates: { provider: string; verified: boolean; status: string; registryId: string | null }[] }
      expect(doc.candidates).toHaveLength(1)
      expect(doc.candidates[0]).toMatchObject({ provider: 'llm', verified: false, status: 'rejected', registryId: null })
      const listed = JSON.parse((await runMain(['registry', 'list', '--json', '--db', join(dir, 'k.db')], dir)).out) as { items: unknown[] }
      expect(listed.items).toEqual([])
    } finally {
      await server.stop()
    }
  }, 300_000)
})
