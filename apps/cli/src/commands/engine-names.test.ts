/**
 * The built-in engines are listed once, in compose's engines.ts (ENGINE_NAMES). What the CLI's
 * help prints and its flag parser accepts for a run request's or the catalog's --engine, and the
 * engines the server and the embedded store register, are that list; no help text keeps a copy of
 * it by hand (one did, and had gone stale: it lacked onnx-cpu).
 */
import { describe, expect, it } from 'vitest'
import { ENGINE_NAMES, SERVING_ENGINE_NAMES } from '@kerneltune/compose'
import { defaultRegistry, enginePlugins } from '@kerneltune/compose/node'
import type { CommandMeta } from '../cli/lazy.ts'
import { COMMAND_MANIFEST } from './manifest.generated.ts'

function* commands(list: readonly CommandMeta[], path: string[] = []): Generator<[string, CommandMeta]> {
  for (const c of list) {
    yield [[...path, c.name].join(' '), c]
    yield* commands(c.subcommands ?? [], [...path, c.name])
  }
}

describe('the engine list', () => {
  it('should be ENGINE_NAMES in the --engine choices of run requests and the catalog, as --help prints them', () => {
    const engineFlags = [...commands(COMMAND_MANIFEST)].flatMap(([name, c]) => (c.flags ?? []).filter((f) => f.name === 'engine').map((f) => [name, f] as const))
    const full = engineFlags.filter(([name]) => /^(run create|catalog (preview|explain)|recommend)\b/.test(name))
    expect(full.map(([name]) => name)).toEqual(expect.arrayContaining(['run create', 'catalog preview', 'catalog explain']))
    for (const [name, f] of full) expect(f.choices, `${name} --engine`).toEqual([...ENGINE_NAMES])
  })

  it('should be what the server and the embedded store register, in its order', () => {
    expect(enginePlugins().map((e) => e.name)).toEqual([...ENGINE_NAMES])
    expect(defaultRegistry().list('engine').map((e) => e.name)).toEqual([...ENGINE_NAMES])
    // The serving engines (sweep --backend server, the gateway's arms) are the plugins with a serving capability.
    expect(enginePlugins().filter((e) => e.serving).map((e) => e.name)).toEqual([...SERVING_ENGINE_NAMES])
    const gateway = COMMAND_MANIFEST.find((c) => c.name === 'gateway')!.flags!.find((f) => f.name === 'engine')!
    expect(gateway.choices).toEqual([...SERVING_ENGINE_NAMES])
  })

  it('should not be copied into any help text by hand', () => {
    const copied = new RegExp(ENGINE_NAMES.slice(0, 3).map((n) => n.replace(/[-]/g, '\\-')).join(',\\s*'))
    const texts = [...commands(COMMAND_MANIFEST)].flatMap(([name, c]) => [c.summary, c.description ?? '', ...(c.flags ?? []).map((f) => f.description)].map((t) => [name, t] as const))
    expect(texts.filter(([, t]) => copied.test(t)).map(([name]) => name)).toEqual([])
  })
})
