/**
 * `testEngine`: the conformance suite every engine plugin runs, first-party or third-party.
 * It declares vitest suites, so call it at the top level of a test file. It runs unchanged on
 * Node (vitest), Bun (bun:test) and Deno (the vitest shim).
 */
import { describe, expect, it } from 'vitest'
import { servingCommandProblems, servingProblems } from './serving.ts'
import { assertPlugin, CORE_DIMENSION_IDS, CORE_DIMENSION_NEUTRAL, CORE_DIMENSION_VALUES, createRegistry, isKerneltuneError, type Combo, type EnginePlugin, type HardwareSpec, type TranslateResult } from '@kerneltune/core'
import { baselineOf, CAPABLE_DEVICE, engineCatalog, quickRunCount } from './catalog-checks.ts'
import { coreCombos } from './combos.ts'
import { inventoryProblems, type EngineInventory } from './inventory.ts'
import { resultProblems } from './shape.ts'

export interface TestEngineOptions {
  /** The plugin, or a factory called once per test. */
  readonly engine: EnginePlugin | (() => EnginePlugin)
  /** The combinations to walk; defaults to the full product of the core dimensions. */
  readonly combos?: readonly Combo[]
  /**
   * The inventory of an engine version, or undefined when none is at hand; defaults to the
   * plugin's own `inventory` hook. When there is one, every translation must stay inside it
   * (flags, environment variables, values, config keys).
   */
  readonly inventory?: (version: string) => EngineInventory | undefined
  /** The device of the quick-run check (default an H100 SXM, sm_90). */
  readonly hardware?: HardwareSpec
  /** Names of checks to skip, with the reason (shown in the test name). */
  readonly skip?: Readonly<Partial<Record<'inventory' | 'determinism' | 'catalogExtension' | 'baseline' | 'quickRun', string>>>
  /** More tests, declared inside the suite's describe block. */
  readonly additionalTests?: () => void
}

const MAX_SHOWN = 20

/** Fails with every problem listed (jest's `expect`, used under Deno, takes no message). */
function expectNone(problems: readonly string[]): void {
  if (problems.length === 0) return
  const head = problems.slice(0, MAX_SHOWN).join('\n  ')
  throw new Error(`${problems.length} problem(s):\n  ${head}${problems.length > MAX_SHOWN ? `\n  ... and ${problems.length - MAX_SHOWN} more` : ''}`)
}

/** Calls translate and turns a throw into a problem, so one bad combination cannot hide others. */
async function attempt(engine: EnginePlugin, combo: Combo, version?: string): Promise<TranslateResult | Error> {
  try {
    return await engine.translate(combo, version === undefined ? {} : { version })
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
}

/** Runs the conformance suite against an engine plugin. */
export function testEngine(options: TestEngineOptions): void {
  const make = typeof options.engine === 'function' ? options.engine : () => options.engine as EnginePlugin
  const probe = make()
  const combos = options.combos ?? coreCombos()
  const skip = options.skip ?? {}
  const inventoryOf = options.inventory ?? (probe.inventory ? (v: string) => make().inventory!(v) : undefined)
  const hardware = options.hardware ?? CAPABLE_DEVICE
  // Say why each opted-out check is skipped, with the marker npm test's summary collects (the
  // same line @kerneltune/tooling's skip helper prints; this published package cannot import it).
  for (const [check, reason] of Object.entries(skip)) if (reason) console.warn(`kerneltune-skip: ${probe.name} conformance, ${check}: ${reason}`)
  if (!inventoryOf) console.warn(`kerneltune-skip: ${probe.name} conformance, inventory: the engine has no per-version inventory`)
  if (!probe.catalogExtension) console.warn(`kerneltune-skip: ${probe.name} conformance, catalogExtension: the engine adds no catalog dimensions or rules`)

  describe(`engine conformance: ${probe.name}`, () => {
    it('should be a valid engine plugin of the current contract', () => {
      const engine = make()
      assertPlugin(engine)
      expect(engine.kind).toBe('engine')
      expect(typeof engine.displayName).toBe('string')
    })

    it('should register in a core registry and be found by name', () => {
      const registry = createRegistry()
      registry.register(make())
      expect(registry.get('engine', probe.name).name).toBe(probe.name)
      expect(() => registry.register(make())).toThrow(/already registered/)
    })

    it('should list its supported versions, including the default one', () => {
      const engine = make()
      const versions = engine.supportedVersions()
      expect(versions.length).toBeGreaterThan(0)
      expect(new Set(versions).size).toBe(versions.length)
      for (const v of versions) expect(typeof v).toBe('string')
      expect(versions).toContain(engine.defaultVersion)
    })

    it(`should translate or refuse each of ${combos.length} combinations, well-formed, for every supported version`, async () => {
      const engine = make()
      const problems: string[] = []
      for (const version of engine.supportedVersions()) {
        for (const combo of combos) {
          const result = await attempt(engine, combo, version)
          if (result instanceof Error) problems.push(`${JSON.stringify(combo)} @ ${version}: threw ${result.message}`)
          else problems.push(...resultProblems(engine, combo, version, result))
        }
      }
      expectNone(problems)
    })

    it.skipIf(!inventoryOf || skip.inventory)(
      `should emit only flags, variables and values of the version's inventory${skip.inventory ? ` (skipped: ${skip.inventory})` : ''}`,
      async () => {
        const engine = make()
        const problems: string[] = []
        let checked = 0
        for (const version of engine.supportedVersions()) {
          const inventory = inventoryOf!(version)
          if (!inventory) continue
          for (const combo of [{}, ...combos]) {
            const result = await attempt(engine, combo, version)
            if (result instanceof Error || !result.ok) continue
            checked++
            for (const p of inventoryProblems(result, inventory)) problems.push(`${JSON.stringify(combo)} @ ${version}: ${p}`)
          }
        }
        expectNone(problems)
        expect(checked).toBeGreaterThan(0)
      },
    )

    it('should declare the core dimensions it controls', () => {
      const controls = make().controls
      expect(Array.isArray(controls)).toBe(true)
      for (const id of controls!) expect(CORE_DIMENSION_IDS).toContain(id)
      expect(new Set(controls).size).toBe(controls!.length)
    })

    it('should accept the neutral value of a dimension it does not control, with a note, and refuse any other', async () => {
      const engine = make()
      const problems: string[] = []
      for (const id of CORE_DIMENSION_IDS.filter((d) => !(engine.controls ?? CORE_DIMENSION_IDS).includes(d))) {
        const neutral = await attempt(engine, { [id]: CORE_DIMENSION_NEUTRAL[id] })
        if (neutral instanceof Error || !neutral.ok) problems.push(`${id}=${CORE_DIMENSION_NEUTRAL[id]} (neutral) was not accepted`)
        else if (!neutral.notes.some((n) => n.includes(id) && n.includes('left to the engine'))) problems.push(`${id}=${CORE_DIMENSION_NEUTRAL[id]}: no note that the choice is left to the engine`)
        for (const value of CORE_DIMENSION_VALUES[id].filter((v) => v !== CORE_DIMENSION_NEUTRAL[id])) {
          const other = await attempt(engine, { [id]: value })
          if (other instanceof Error || other.ok || other.dimension !== id) problems.push(`${id}=${value} was not refused on ${id}`)
        }
      }
      expectNone(problems)
    })

    it.skipIf(skip.baseline)(`should express its baseline (every catalog dimension at its neutral value) in every supported version${skip.baseline ? ` (skipped: ${skip.baseline})` : ''}`, async () => {
      const engine = make()
      const baseline = baselineOf(engineCatalog(engine), engine.name)
      const problems: string[] = []
      for (const version of engine.supportedVersions()) {
        const result = await attempt(engine, baseline, version)
        if (result instanceof Error) problems.push(`@ ${version}: threw ${result.message}`)
        else if (!result.ok) problems.push(`@ ${version}: refused ${result.dimension}=${result.value}: ${result.reason}`)
      }
      expectNone(problems)
    })

    it.skipIf(skip.quickRun)(`should have more than one legal combination in a quick run on ${hardware.id ?? hardware.name}, in every supported version${skip.quickRun ? ` (skipped: ${skip.quickRun})` : ''}`, async () => {
      const engine = make()
      const problems: string[] = []
      for (const version of engine.supportedVersions()) {
        const counts = await quickRunCount(engine, version, hardware)
        if (counts.legal <= 1) problems.push(`@ ${version}: ${counts.legal} legal of ${counts.total} (${counts.pruned} pruned, ${counts.refused} refused)`)
      }
      expectNone(problems)
    })

    it.skipIf(skip.determinism)('should give the same result for the same input', async () => {
      const engine = make()
      for (let i = 0; i < combos.length; i += 13) {
        const combo = combos[i]!
        expect(await attempt(engine, combo)).toEqual(await attempt(make(), combo))
      }
    })

    it('should use the default version when the context gives none', async () => {
      const engine = make()
      const result = await attempt(engine, {})
      expect(result).not.toBeInstanceOf(Error)
      expect((result as TranslateResult).version).toBe(engine.defaultVersion)
    })

    it('should translate the empty combination (every dimension at the engine default)', async () => {
      const engine = make()
      const result = await attempt(engine, {})
      expect(resultProblems(engine, {}, engine.defaultVersion, result)).toEqual([])
      expect((result as TranslateResult).ok).toBe(true)
    })

    it('should accept combinations with missing keys', async () => {
      const engine = make()
      const problems: string[] = []
      const singles = new Map<string, Combo>()
      for (const combo of combos) for (const [k, v] of Object.entries(combo)) singles.set(`${k}=${v}`, { [k]: v })
      for (const combo of singles.values()) {
        const result = await attempt(engine, combo)
        if (result instanceof Error) problems.push(`${JSON.stringify(combo)}: threw ${result.message}`)
        else problems.push(...resultProblems(engine, combo, engine.defaultVersion, result))
      }
      expectNone(problems)
    })

    it('should refuse an unknown value of a known dimension, naming it', async () => {
      const engine = make()
      const combo = { attention_backend: 'no_such_backend' }
      const result = await attempt(engine, combo)
      expect(result).toMatchObject({ ok: false, dimension: 'attention_backend', value: 'no_such_backend' })
    })

    it('should refuse a dimension it does not know, naming it', async () => {
      const engine = make()
      const result = await attempt(engine, { no_such_dimension: 'x' })
      expect(result).toMatchObject({ ok: false, dimension: 'no_such_dimension', value: 'x' })
    })

    // Errors must name the plugin: the registry passes those through with their code, and wraps
    // any other throw as PLUGIN_ERROR.
    it('should reject an unsupported version with INVALID_INPUT, also through the registry', async () => {
      for (const engine of [make(), createRegistry().register(make())]) {
        const result = await attempt(engine, {}, '0.0.0-no-such-version')
        expect(result).toBeInstanceOf(Error)
        expect(isKerneltuneError(result) && result.code).toBe('INVALID_INPUT')
      }
    })

    it('should reject a combination that is not a map of strings with INVALID_INPUT, also through the registry', async () => {
      for (const engine of [make(), createRegistry().register(make())]) {
        const result = await attempt(engine, { attention_backend: 3 } as unknown as Combo)
        expect(isKerneltuneError(result) && result.code).toBe('INVALID_INPUT')
      }
    })

    it.skipIf(!probe.catalogExtension || skip.catalogExtension)('should contribute a well-formed catalog extension', async () => {
      const engine = make()
      const ext = engine.catalogExtension!
      for (const dim of ext.dimensions) {
        expect(dim.id).toMatch(/^[a-z][a-z0-9_]*$/)
        expect(dim.values.length).toBeGreaterThan(0)
        expect(dim.values.map((v) => v.id)).toContain(dim.defaultValue)
        for (const value of dim.values) {
          const combo = { [dim.id]: value.id }
          expect(resultProblems(engine, combo, engine.defaultVersion, await attempt(engine, combo))).toEqual([])
        }
      }
      for (const rule of ext.rules) {
        expect(['illegal', 'prune']).toContain(rule.kind)
        expect(rule.reason.length).toBeGreaterThan(0)
        expect(rule.source.length).toBeGreaterThan(0)
        expect(typeof rule.violates).toBe('function')
      }
    })

    if (probe.serving) {
      it('should declare a serving capability with its evidence, a full metric map and usable log patterns', () => {
        expectNone(servingProblems(make().serving!))
      })

      it('should launch exactly the translation (argv, env, files) plus the declared listen and metrics arguments', async () => {
        const engine = make()
        const serving = engine.serving!
        let launched = 0
        for (const combo of [{}, ...combos.slice(0, 20)]) {
          const t = await engine.translate(combo, { model: 'model', options: serving.listenOptions ?? { host: '127.0.0.1', port: '{port}' } })
          if (!t.ok) continue
          launched++
          expectNone(servingCommandProblems(serving, t))
        }
        expect(launched).toBeGreaterThan(0)
      })
    }

    options.additionalTests?.()
  })
}
