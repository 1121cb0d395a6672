/**
 * The choices a run request can name here: the registry's engines (with their versions) and
 * measurement backends (with what their numbers are), the hardware presets, modes and gates. The
 * dashboard's Runner and History read them, so that an engine or backend added to the registry
 * shows up there without a change to the dashboard.
 */
import { HardwareSpecSchema, QualityGateMethodSchema, RunModeSchema, type HardwareSpec } from '@kerneltune/core'
import type { AppDeps } from '../deps.ts'
import { HARDWARE_PRESETS } from '@kerneltune/features'
import { route, type Route } from '../http.ts'
import { OptionsResponse } from '../responses.ts'
import { measuredBy } from './runs.ts'

// The presets carry sources, aliases and notes for people; a run request takes the spec.
const HARDWARE = HARDWARE_PRESETS.map((p) => HardwareSpecSchema.parse(p))

/** The detected spec of the server's machine, parsed as a run request parses hardware; none when detection fails. */
async function localHardware(deps: AppDeps): Promise<HardwareSpec[]> {
  const spec = await deps.localHardware?.().catch(() => undefined)
  const parsed = spec ? HardwareSpecSchema.safeParse(spec) : undefined
  return parsed?.success ? [parsed.data] : []
}

export const optionRoutes: Route[] = [
  route({ method: 'get', path: '/options', summary: 'Engines (with versions), measurement backends (simulated, proxy or measured), hardware presets, modes and quality gates a run can name', role: 'viewer', response: OptionsResponse }, async ({ deps }) => ({
    engines: deps.registry.list('engine').map((e) => ({ name: e.name, displayName: e.displayName, defaultVersion: e.defaultVersion, versions: [...e.supportedVersions()] })),
    backends: deps.registry.list('measurement-backend').map((b) => {
      const { simulated, proxy } = measuredBy(deps.registry, b.name)!
      return { name: b.name, simulated, proxy, label: simulated ? 'simulated' : proxy ? 'proxy' : 'measured', description: b.description ?? null }
    }),
    // This machine first (what a run over a local backend measures on, and the roofline then fits), then the presets.
    hardware: [...await localHardware(deps), ...HARDWARE],
    modes: RunModeSchema.options,
    gates: QualityGateMethodSchema.options,
  })),
]
