/**
 * `kerneltune translate` starts within 1.5 times tsx on an empty file only while it leaves zod
 * unloaded (issue 24): zod was about two thirds of the modules it loaded. Engines and the
 * translate path take their run-time values from `@kerneltune/core/lite`, which checks
 * combinations and plugins by hand; an import of core's main entry (which re-exports the zod
 * schemas) anywhere on the path, or zod itself, fails here. The modules are those Node resolves
 * while the CLI translates for every built-in engine, from source as the benchmark runs it.
 */
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ENGINE_NAMES } from '@kerneltune/compose'
import { modulesLoadedBy } from '@kerneltune/tooling/loaded-modules'

const CLI = fileURLToPath(new URL('../..', import.meta.url))
const MAIN = pathToFileURL(join(CLI, 'src/main.ts')).href
const CORE_INDEX = pathToFileURL(join(CLI, '../../packages/core/src/index.ts')).href

// zod in any layout (pnpm's .pnpm store or a flat node_modules), and core's zod-bearing modules.
const ZOD = /\/node_modules\/(?:\.pnpm\/zod@[^/]+\/node_modules\/)?zod\//
const CORE_WITH_ZOD = /\/packages\/core\/src\/(?:index\.ts|schemas\/|json-schema\.ts)/

const forbidden = (loaded: readonly string[]): string[] => loaded.filter((u) => ZOD.test(u) || CORE_WITH_ZOD.test(u))

describe('kerneltune translate and zod', () => {
  it('should load neither zod nor core\'s main entry, for any built-in engine', () => {
    const { status, stderr, loaded } = modulesLoadedBy(`import { main } from ${JSON.stringify(MAIN)}
const out: string[] = []
const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => process.stderr.write(t), interactive: false, env: {}, cwd: '/' }
for (const engine of ${JSON.stringify(ENGINE_NAMES)}) {
  const code = await main(['translate', '--engine', engine, '--combo', '{}', '--json'], io)
  if (code !== 0) throw new Error('translate --engine ' + engine + ' exited ' + code)
}
// A malformed combination still fails with the same error, checked without zod.
if (await main(['translate', '--engine', 'vllm', '--combo', '{"Attention": 1}'], io) === 0) throw new Error('a bad combination was accepted')`, CLI)
    expect(stderr).toContain('invalid vLLM combination: Attention: Invalid key in record')
    expect(status).toBe(0)
    // The check sees the translate path: the engines and core's lite entry are in the list.
    for (const pkg of ['engines-vllm', 'engines-llamacpp', 'engines-triton', 'engines-onnx']) expect(loaded.some((u) => u.includes(`/packages/${pkg}/src/`))).toBe(true)
    expect(loaded.some((u) => u.endsWith('/packages/core/src/lite.ts'))).toBe(true)
    expect(forbidden(loaded)).toEqual([])
  })

  it('should see zod where core\'s main entry is imported (the check above can fail)', () => {
    const { status, loaded } = modulesLoadedBy(`import { ComboSchema } from ${JSON.stringify(CORE_INDEX)}\nComboSchema.parse({})`, CLI)
    expect(status).toBe(0)
    expect(forbidden(loaded).some((u) => ZOD.test(u))).toBe(true)
    expect(forbidden(loaded).some((u) => u.endsWith('/packages/core/src/index.ts'))).toBe(true)
  })
})
